// The repository's fixtures/, read over HTTP (web-test-runner serves the repo root) and validated with the
// protocol's schemas, so browser tests play the same scenarios as the Node suites.
import { AgentsConfig, Catalog, Layout } from '@canvas-ai/protocol';
import { parseYamlData } from '@canvas-ai/protocol/server';
import { Scenario, type Fixtures } from '@canvas-ai/protocol/scenario';

const SCENARIOS = [
  'cookie-shop',
  'image-attachment',
  'place-hero-two-hop',
  'qa-one-hop',
  'coedit-heading-conflict',
  'host-rejects-final-output',
  'edit-selected',
  'remove-testimonials',
  'question-answered',
  'question-dismissed',
  'screenshot-page',
  'plan-revised-then-built',
  'approval-removal-rejected',
  'approval-removal-approved',
] as const;
const LAYOUTS = ['layouts/empty.yaml', 'layouts/nested.yaml', 'layouts/cookie-shop.yaml'] as const;
const ATTACHMENTS = ['attachments/cookie.png'] as const;

let loaded: Promise<Fixtures> | undefined;

/** The fixtures the browser tests use (loaded once per page). */
export function loadFixtures(): Promise<Fixtures> {
  loaded ??= readAll();
  return loaded;
}

/** One scenario by id. */
export async function scenario(id: (typeof SCENARIOS)[number]): Promise<Scenario> {
  const found = (await loadFixtures()).scenarios.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no scenario "${id}"`);
  return found;
}

async function readAll(): Promise<Fixtures> {
  const [catalog, agents, scenarios, layouts, attachments] = await Promise.all([
    readYaml('catalog.yaml', Catalog),
    readYaml('agents.yaml', AgentsConfig),
    Promise.all(SCENARIOS.map((id) => readYaml(`scenarios/${id}.yaml`, Scenario))),
    Promise.all(LAYOUTS.map(async (path) => [path, await readYaml(path, Layout)] as const)),
    Promise.all(
      ATTACHMENTS.map(async (path) => [path, new Uint8Array(await (await get(path)).arrayBuffer())] as const),
    ),
  ]);
  return {
    dir: '/fixtures/',
    catalog,
    agents,
    scenarios,
    layouts: Object.fromEntries(layouts),
    attachments: Object.fromEntries(attachments),
  };
}

/** The part of a zod schema this file uses (zod itself is the protocol's dependency, not ours). */
interface Schema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

async function readYaml<T>(path: string, schema: Schema<T>): Promise<T> {
  const parsed = parseYamlData(await (await get(path)).text(), path);
  if (!parsed.ok) throw new Error(`fixtures/${path}: ${parsed.message}`);
  const result = schema.safeParse(parsed.value);
  if (!result.success)
    throw new Error(
      `fixtures/${path}: ${result.error.issues[0]?.path.map(String).join('.')}: ${result.error.issues[0]?.message}`,
    );
  return result.data;
}

async function get(path: string): Promise<Response> {
  const response = await fetch(`/fixtures/${path}`);
  if (!response.ok) throw new Error(`fixtures/${path}: HTTP ${response.status}`);
  return response;
}
