import type { Fixtures } from '../scenario/fixtures.js';

/** Where the generated module sits, from the package root. */
export const FIXTURES_MODULE_PATH = 'src/fixtures-module/repository-fixtures.data.ts';

/**
 * The text of `src/fixtures-module/repository-fixtures.data.ts`: the repository's fixtures (catalog, agents, layouts,
 * scenarios) as one data module, so a page imports them without a file system or a YAML parser. Written by
 * `pnpm --filter @canvas-ai/protocol fixtures`; a test fails when the committed file is stale.
 */
export function fixturesModuleText(fixtures: Fixtures): string {
  const { catalog, agents, layouts, scenarios } = fixtures;
  const data = JSON.stringify({ catalog, agents, layouts, scenarios }, null, 2);
  return (
    '// Generated from fixtures/*.yaml by `pnpm --filter @canvas-ai/protocol fixtures`: do not edit by hand.\n' +
    `export const REPOSITORY_FIXTURES_DATA: unknown = ${data};\n`
  );
}
