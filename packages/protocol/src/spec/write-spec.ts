// `pnpm spec`: writes the generated spec files. The only part of the generator that touches the file system.
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { specFiles } from './build-spec.js';
import { checkersModule } from './checkers.js';
import { fillGeneratedSections } from './doc-sections.js';

// The repository's spec/ folder.
const SPEC_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../spec');

const files = specFiles();
mkdirSync(join(SPEC_DIR, 'schema'), { recursive: true });
// A message that was renamed or dropped must not leave its old schema file behind.
for (const name of readdirSync(join(SPEC_DIR, 'schema'))) {
  if (name.endsWith('.schema.json') && !(`schema/${name}` in files)) rmSync(join(SPEC_DIR, 'schema', name));
}
for (const [path, text] of Object.entries(files)) writeFileSync(join(SPEC_DIR, path), text);

const docPath = join(SPEC_DIR, 'hop-protocol.md');
writeFileSync(docPath, fillGeneratedSections(readFileSync(docPath, 'utf8')));
// The browser's checkers, generated from the same schemas.
const CHECKERS_FILE = join(dirname(fileURLToPath(import.meta.url)), '../check/wire-checkers.ts');
writeFileSync(CHECKERS_FILE, checkersModule());
console.log(`wrote ${Object.keys(files).length} files and the generated tables of hop-protocol.md under ${SPEC_DIR}`);
console.log(`wrote ${CHECKERS_FILE}`);
