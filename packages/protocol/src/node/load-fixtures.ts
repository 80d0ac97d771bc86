import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentsConfig } from '../config/agents-config.js';
import { Catalog } from '../config/catalog.js';
import type { Fixtures } from '../scenario/fixtures.js';
import { Scenario } from '../scenario/scenario.js';
import { Layout } from '../wire/layout.js';
import { FixtureError, readYamlFile } from './read-yaml.js';

/**
 * The shared fixtures: run from the package's sources, the repository's fixtures/ folder; run from its build (an
 * installed package), the copy the build put next to it (dist/fixtures). This file is src/node/load-fixtures.ts or
 * dist/node/load-fixtures.js.
 */
export const DEFAULT_FIXTURES_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../../../fixtures/' : '../fixtures/', import.meta.url),
);

const YAML_FILE = /\.ya?ml$/;
const IMAGE_FILE = /\.(png|jpe?g|webp|gif)$/i;

/** Reads and validates the component catalog (`catalog.yaml`). */
export function loadCatalog(file: string): Promise<Catalog> {
  return readYamlFile(file, Catalog);
}

/** Reads and validates the agents config (`agents.yaml`). */
export function loadAgentsConfig(file: string): Promise<AgentsConfig> {
  return readYamlFile(file, AgentsConfig);
}

/** Reads and validates one layout fixture. */
export function loadLayout(file: string): Promise<Layout> {
  return readYamlFile(file, Layout);
}

/** Reads and validates one scenario; its `id` must be its file name without `.yaml`. */
export async function loadScenario(file: string): Promise<Scenario> {
  const scenario = await readYamlFile(file, Scenario);
  const expectedId = basename(file).replace(YAML_FILE, '');
  if (scenario.id !== expectedId)
    throw new FixtureError(file, `id: "${scenario.id}" should match the file name ("${expectedId}")`);
  return scenario;
}

/** Reads every `*.yaml` scenario of a folder, sorted by file name (so ids, being file names, are unique). */
export async function loadScenarios(dir: string): Promise<Scenario[]> {
  const files = (await readdir(dir)).filter((name) => YAML_FILE.test(name)).sort();
  return Promise.all(files.map((name) => loadScenario(join(dir, name))));
}

/**
 * Reads the whole fixtures folder (default: the repository's fixtures/): catalog, agents, every layout under
 * layouts/, every scenario under scenarios/, every image under attachments/. A scenario naming a layout or
 * attachment that does not exist is a {@link FixtureError}.
 */
export async function loadFixtures(dir: string = DEFAULT_FIXTURES_DIR): Promise<Fixtures> {
  const [catalog, agents, layouts, scenarios, attachments] = await Promise.all([
    loadCatalog(join(dir, 'catalog.yaml')),
    loadAgentsConfig(join(dir, 'agents.yaml')),
    loadFolder(dir, 'layouts', YAML_FILE, loadLayout),
    loadScenarios(join(dir, 'scenarios')),
    loadFolder(dir, 'attachments', IMAGE_FILE, async (file) => new Uint8Array(await readFile(file))),
  ]);
  for (const scenario of scenarios)
    checkScenarioFiles(scenario, join(dir, 'scenarios', `${scenario.id}.yaml`), { layouts, attachments });
  return { dir, catalog, agents, layouts, scenarios, attachments };
}

/**
 * Throws a {@link FixtureError} naming `file` when the scenario's layout or one of its attachments is not among the
 * loaded fixtures. Own keys only: a name such as `constructor` is not a fixture.
 */
export function checkScenarioFiles(
  scenario: Scenario,
  file: string,
  fixtures: Pick<Fixtures, 'layouts' | 'attachments'>,
): void {
  if (!Object.hasOwn(fixtures.layouts, scenario.layout)) {
    throw new FixtureError(
      file,
      `layout: no layout fixture "${scenario.layout}" (known: ${Object.keys(fixtures.layouts).join(', ') || 'none'})`,
    );
  }
  const images = [
    ...scenario.attachments.map((attachment, index) => ({ at: `attachments.${index}.file`, attachment })),
    // A screenshot's answer sends a fixture image too (spec §15, §20.3).
    ...scenario.hops.flatMap((hop, index) =>
      hop.answer?.image ? [{ at: `hops.${index}.answer.image.file`, attachment: hop.answer.image }] : [],
    ),
  ];
  for (const { at, attachment } of images) {
    if (!Object.hasOwn(fixtures.attachments, attachment.file)) {
      throw new FixtureError(
        file,
        `${at}: no image "${attachment.file}" (known: ${Object.keys(fixtures.attachments).join(', ') || 'none'})`,
      );
    }
  }
}

/**
 * Loads every matching file of `dir/folder` (not recursive), keyed by its path relative to `dir` with `/`.
 * A missing folder holds nothing: a fixtures folder without attachments is fine.
 */
async function loadFolder<T>(
  dir: string,
  folder: string,
  pattern: RegExp,
  load: (file: string) => Promise<T>,
): Promise<Record<string, T>> {
  let names: string[];
  try {
    names = (await readdir(join(dir, folder))).filter((name) => pattern.test(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const entries = await Promise.all(
    names.map(async (name) => {
      const file = join(dir, folder, name);
      return [relative(dir, file).split(sep).join('/'), await load(file)] as const;
    }),
  );
  return Object.fromEntries(entries);
}
