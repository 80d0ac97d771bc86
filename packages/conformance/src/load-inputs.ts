import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkScenarioFiles, loadFixtures, loadScenarios } from '@canvas-ai/protocol/node';
import { FixtureError, readYamlFile } from '@canvas-ai/protocol/node';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import { MalformedRequestTable, type MalformedRequestCase } from '@canvas-ai/protocol/scenario';
import type { ConformanceLevel } from './check.js';
import { EXERCISABLE_CHECKS } from './checks/tools.js';

/**
 * The fixtures the kit ships: the scenarios, the malformed-request table, the layouts, attachments, catalog and
 * agents a scripted-mode server serves (spec/conformance.md §3). Run from the package's sources, the repository's
 * fixtures/ folder; run from its build (an installed package), the copy the build put in dist/fixtures.
 */
export const KIT_FIXTURES_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../../fixtures/' : './fixtures/', import.meta.url),
);

/** Where the kit reads its tables from. */
export interface InputFolders {
  /** The fixtures folder: malformed-requests.yaml, layouts/, attachments/ (and catalog.yaml, agents.yaml, scenarios/). Default: {@link KIT_FIXTURES_DIR}. */
  fixturesDir?: string;
  /** The scenarios level 2 plays. Default: `<fixturesDir>/scenarios`. */
  scenariosDir?: string;
}

/** The malformed-request table, and for level 2 the fixtures with the scenarios to play. */
export interface ConformanceInputs {
  malformedRequests: MalformedRequestCase[];
  fixtures: Fixtures | undefined;
}

/**
 * Reads what a run needs from disk. Scenario paths (`layout`, `attachments`) are relative to the fixtures folder, so
 * scenarios from another folder still take their layouts and attachments from `fixturesDir`. Throws a
 * `FixtureError` naming the file and key of anything that does not parse.
 */
export async function loadConformanceInputs(
  level: ConformanceLevel,
  folders: InputFolders = {},
): Promise<ConformanceInputs> {
  const fixturesDir = folders.fixturesDir ?? KIT_FIXTURES_DIR;
  const malformedRequests = await readYamlFile(join(fixturesDir, 'malformed-requests.yaml'), MalformedRequestTable);
  if (level < 2) return { malformedRequests, fixtures: undefined };
  const fixtures = await loadFixtures(fixturesDir);
  if (folders.scenariosDir !== undefined) {
    fixtures.scenarios = await loadScenarios(folders.scenariosDir);
    for (const scenario of fixtures.scenarios)
      checkScenarioFiles(scenario, join(folders.scenariosDir, `${scenario.id}.yaml`), fixtures);
  }
  for (const scenario of fixtures.scenarios) {
    const unknown = scenario.exercises.filter((id) => !EXERCISABLE_CHECKS.includes(id));
    if (unknown.length > 0)
      throw new FixtureError(
        `${scenario.id}.yaml`,
        `exercises: no check ${unknown.join(', ')} judges scenarios (known: ${EXERCISABLE_CHECKS.join(', ')})`,
      );
  }
  if (fixtures.scenarios.length === 0)
    throw new FixtureError(folders.scenariosDir ?? join(fixturesDir, 'scenarios'), 'holds no scenario (*.yaml)');
  return { malformedRequests, fixtures };
}
