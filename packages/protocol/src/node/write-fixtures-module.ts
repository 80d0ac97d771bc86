// `pnpm fixtures`: writes the repository's fixtures as a data module for pages (the only part touching files).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIXTURES_MODULE_PATH, fixturesModuleText } from './fixtures-module.js';
import { loadFixtures } from './load-fixtures.js';

const target = fileURLToPath(new URL(`../../${FIXTURES_MODULE_PATH}`, import.meta.url));
writeFileSync(target, fixturesModuleText(await loadFixtures()));
console.log(`wrote ${target}`);
