import { fileURLToPath } from 'node:url';
import type { AgentsConfig, Catalog } from '@canvas-ai/protocol';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import { loadAgentsConfig, loadCatalog, loadScenarios } from '@canvas-ai/protocol/node';
import { loadProjectDocs } from './agents/docs.js';

/** Run from the package's build (an installed package: dist/config.js), not from its sources (src/config.ts). */
const BUILT = !import.meta.url.endsWith('.ts');
/** Where README.md and spec/hop-protocol.md are: the repository root, or the copy the build put in dist/docs. */
const DOCS_ROOT = fileURLToPath(new URL(BUILT ? './docs/' : '../../../', import.meta.url));
/** The default catalog, agents and scenarios: the repository's fixtures/, or the copy the build put in dist/fixtures. */
export const FIXTURES_DIR = fileURLToPath(new URL(BUILT ? './fixtures/' : '../../../fixtures/', import.meta.url));

/** Which files the server reads at start-up. */
export interface ConfigFiles {
  agentsFile?: string;
  catalogFile?: string;
  /** Scenario fixtures for the scripted provider. */
  scenariosDir?: string;
  /** Where README.md and spec/hop-protocol.md are read from for `include_docs` agents. */
  docsRoot?: string;
}

/** What the server was configured with. */
export interface LoadedConfig {
  agents: AgentsConfig;
  agentsFile: string;
  catalog: Catalog;
  scenarios: Scenario[];
  docs: string;
}

/**
 * Reads and validates the config files (defaults: {@link FIXTURES_DIR}). Errors name the file and the key;
 * the cross-check of agents against tools runs in `createApp`.
 */
export async function loadConfig(files: ConfigFiles = {}): Promise<LoadedConfig> {
  const agentsFile = files.agentsFile ?? `${FIXTURES_DIR}agents.yaml`;
  const [agents, catalog, scenarios, docs] = await Promise.all([
    loadAgentsConfig(agentsFile),
    loadCatalog(files.catalogFile ?? `${FIXTURES_DIR}catalog.yaml`),
    loadScenarios(files.scenariosDir ?? `${FIXTURES_DIR}scenarios`),
    loadProjectDocs(files.docsRoot ?? DOCS_ROOT),
  ]);
  return { agents, agentsFile, catalog, scenarios, docs };
}
