import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { findComponent, walkLayout, type CatalogComponent } from '../src/index.js';
import { agentToolNames, builtinTools, executeToolCalls } from '../src/server.js';
import {
  AskQuestionInput,
  RequestScreenshotInput,
  ProposePlanInput,
  EditComponentsInput,
  GetComponentDetailsInput,
  MoveComponentsInput,
  PlaceComponentsInput,
  RemoveComponentsInput,
  SetPageValueInput,
} from '../src/tools/tool-inputs.js';
import type { Scenario } from '../src/scenario/index.js';
import { decidedReplies } from '../src/scenario/index.js';
import { DEFAULT_FIXTURES_DIR, FixtureError, loadFixtures, loadScenario, loadScenarios } from '../src/node/index.js';

const fixtures = await loadFixtures();
const components = new Map(fixtures.catalog.components.map((component) => [component.id, component]));
const inputs: Record<string, { safeParse(value: unknown): { success: boolean } }> = {
  place_components: PlaceComponentsInput,
  edit_components: EditComponentsInput,
  set_page_value: SetPageValueInput,
  remove_components: RemoveComponentsInput,
  move_components: MoveComponentsInput,
  get_component_details: GetComponentDetailsInput,
  ask_question: AskQuestionInput,
  request_screenshot: RequestScreenshotInput,
  propose_plan: ProposePlanInput,
};

/** The agent a scenario runs: its own, or the main agent. */
function agentOf(scenario: Scenario): string {
  return scenario.agent ?? fixtures.agents.main_agent;
}

/** The component id `{{placed.N}}` names: the N-th id of the expected `placed` lists, in hop order. */
function placedComponentIds(scenario: Scenario): string[] {
  return scenario.hops.flatMap((hop) => hop.outputs.flatMap((output) => output.placed ?? []));
}

/** Every problem with component and prop names in a YAML `components` list (placement input). */
function checkComponentList(list: unknown, where: string): string[] {
  if (!Array.isArray(list)) return [`${where}: components is not a YAML list`];
  return list.flatMap((entry, index) => {
    const at = `${where}[${index}]`;
    const keys = entry && typeof entry === 'object' ? Object.keys(entry) : [];
    if (keys.length !== 1) return [`${at}: not a single-key map`];
    const id = keys[0]!;
    const component = components.get(id);
    if (!component) return [`${at}: unknown component ${id}`];
    const { props = {}, slots = {} } = (entry as Record<string, { props?: object; slots?: Record<string, unknown> }>)[
      id
    ]!;
    return [
      ...checkPropNames(component, Object.keys(props), at),
      ...Object.entries(slots).flatMap(([slot, children]) =>
        slot in component.slots ? checkComponentList(children, `${at}.${slot}`) : [`${at}: ${id} has no slot ${slot}`],
      ),
    ];
  });
}

function checkPropNames(component: CatalogComponent, names: string[], where: string): string[] {
  return names
    .filter((name) => !(name in component.props))
    .map((name) => `${where}: ${component.id} has no prop ${name}`);
}

/** Every name a scenario uses that the catalog, the agents config or the layout fixture does not have. */
/**
 * Calls that name what does not exist on purpose, each refused by the server as the scenario expects: this test
 * guards against typos, so every other call must name real things.
 */
const ON_PURPOSE: Record<string, string> = {
  'one-call-at-a-time call_banner': 'a component the catalog does not have, so the first call of a reply fails',
  'yaml-core-schema call_caption': 'a YAML key written twice, which a server refuses',
};

function problemsOf(scenario: Scenario): string[] {
  const problems: string[] = [];
  const agent = fixtures.agents.agents[agentOf(scenario)];
  if (!agent) return [`agent ${agentOf(scenario)} does not exist`];
  const layout = fixtures.layouts[scenario.layout]!;
  const placed = placedComponentIds(scenario);
  // A symbolic uuid stands for the component placed N-th; a fixed one must be in the layout fixture.
  const componentOf = (uuid: string): CatalogComponent | undefined => {
    if (uuid === '{{selected}}') uuid = scenario.selected_component ?? uuid;
    const ref = /^\{\{placed\.(\d+)\}\}$/.exec(uuid);
    const id = ref ? placed[Number(ref[1]) - 1] : findComponent(layout, uuid)?.component;
    return id === undefined ? undefined : components.get(id);
  };
  const checkEdits = (edits: Record<string, unknown>, where: string): void => {
    for (const [uuid, props] of Object.entries(edits)) {
      const component = componentOf(uuid);
      if (!component) problems.push(`${where}: no component ${uuid}`);
      else problems.push(...checkPropNames(component, Object.keys(props as object), `${where}.${uuid}`));
    }
  };

  scenario.replies.forEach((reply, replyIndex) => {
    for (const call of reply.tool_calls) {
      if (Object.hasOwn(ON_PURPOSE, `${scenario.id} ${call.id}`)) continue;
      const where = `reply ${replyIndex + 1} ${call.id}`;
      if (!agentToolNames(agent).includes(call.name))
        problems.push(`${where}: agent ${agentOf(scenario)} has no tool ${call.name}`);
      // Refs are resolved by the server; a placeholder uuid stands in, so the input schema and YAML can be checked.
      const args = JSON.parse(
        call.arguments.replace(/\{\{placed\.(\d+)\}\}/g, 'placed-ref-$1').replaceAll('{{selected}}', 'selected-ref'),
      ) as unknown;
      const named = (uuid: string): string =>
        uuid === 'selected-ref' ? '{{selected}}' : uuid.replace(/^placed-ref-(\d+)$/, '{{placed.$1}}');
      if (!inputs[call.name]?.safeParse(args).success) {
        problems.push(`${where}: arguments do not match the ${call.name} input`);
        continue;
      }
      const yaml = (text: string): unknown => parse(text);
      if (call.name === 'place_components') {
        for (const operation of PlaceComponentsInput.parse(args).operations)
          problems.push(...checkComponentList(yaml(operation.components), where));
      }
      if (call.name === 'edit_components') {
        const edits = yaml(EditComponentsInput.parse(args).component_edits) as Record<string, unknown>;
        checkEdits(Object.fromEntries(Object.entries(edits).map(([uuid, props]) => [named(uuid), props])), where);
      }
      const uuidsNamed =
        call.name === 'remove_components'
          ? RemoveComponentsInput.parse(args).uuids
          : call.name === 'move_components'
            ? MoveComponentsInput.parse(args).operations.flatMap((operation) => operation.uuids)
            : [];
      for (const uuid of uuidsNamed) if (!componentOf(named(uuid))) problems.push(`${where}: no component ${uuid}`);
      if (call.name === 'propose_plan') {
        for (const id of ProposePlanInput.parse(args).rows.flatMap((row) => row.components))
          if (!components.has(id)) problems.push(`${where}: unknown component ${id}`);
      }
      if (call.name === 'get_component_details') {
        for (const id of GetComponentDetailsInput.parse(args).component_ids)
          if (!components.has(id)) problems.push(`${where}: unknown component ${id}`);
      }
      if (call.name === 'set_page_value') {
        const { field } = SetPageValueInput.parse(args);
        if (!fixtures.agents.page_fields.some((pageField) => pageField.name === field))
          problems.push(`${where}: no page field ${field}`);
      }
    }
  });
  scenario.hops.forEach((hop, hopIndex) => {
    for (const output of hop.outputs) {
      const where = `hop ${hopIndex + 1} ${output.call_id}`;
      for (const id of output.placed ?? []) if (!components.has(id)) problems.push(`${where}: unknown component ${id}`);
      if (output.component_updates) checkEdits(output.component_updates, where);
    }
  });
  if (scenario.selected_component !== null && !findComponent(layout, scenario.selected_component)) {
    problems.push(`selected_component ${scenario.selected_component} is not in ${scenario.layout}`);
  }
  return problems;
}

describe('the fixtures folder', () => {
  it('loads from the repository by default and validates every file with the protocol schemas', async () => {
    assert.equal(fixtures.dir, DEFAULT_FIXTURES_DIR);
    assert.equal(fixtures.catalog.components.length, 12);
    assert.deepEqual(Object.keys(fixtures.layouts).sort(), [
      'layouts/cookie-shop.yaml',
      'layouts/derived.yaml',
      'layouts/empty.yaml',
      'layouts/nested.yaml',
    ]);
    const files = (await readdir(join(fixtures.dir, 'scenarios'))).filter((name) => name.endsWith('.yaml'));
    assert.equal(fixtures.scenarios.length, files.length);
  });

  it('has every scenario the project relies on', () => {
    const ids = fixtures.scenarios.map((scenario) => scenario.id);
    for (const id of [
      'qa-one-hop',
      'place-hero-two-hop',
      'load-then-edit',
      'image-attachment',
      'cookie-shop',
      'validation-error-recovery',
      'max-hops',
      'parallel-place-rejected',
      'edit-selected',
      'remove-testimonials',
      'move-testimonials-up',
      'remove-selected',
    ]) {
      assert.ok(ids.includes(id), `scenario ${id}`);
    }
  });

  it('ships the attachment as a real PNG (magic bytes and IHDR)', () => {
    const png = fixtures.attachments['attachments/cookie.png'];
    assert.ok(png);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(Buffer.from(png.subarray(12, 16)).toString('ascii'), 'IHDR');
    assert.equal(Buffer.from(png.subarray(png.length - 8, png.length - 4)).toString('ascii'), 'IEND');
  });

  it('uses only catalog components and props in the layouts', () => {
    for (const [file, layout] of Object.entries(fixtures.layouts)) {
      walkLayout(layout, (node) => {
        const component = components.get(node.component);
        assert.ok(component, `${file}: ${node.component}`);
        assert.deepEqual(checkPropNames(component, Object.keys(node.props), `${file} ${node.uuid}`), []);
      });
    }
  });
});

describe('every scenario', () => {
  for (const scenario of fixtures.scenarios) {
    it(`"${scenario.id}" references only agents, tools, components, props and uuids that exist`, () => {
      assert.deepEqual(problemsOf(scenario), []);
    });

    it(`"${scenario.id}" has one reply per model decision its hops imply`, () => {
      const last = scenario.hops.at(-1)!;
      // Every hop makes one decision, except those that only end the turn after the last outputs (spec §2).
      const decided = decidedReplies(
        scenario,
        scenario.hops,
        (index) =>
          [...(scenario.hops[index]!.apply_results ?? [])].some((result) => result.status === 'rejected') ||
          scenario.hops[index]!.conflicts.length > 0,
      );
      const decisions = decided.filter((reply) => reply !== undefined).length;
      assert.equal(scenario.replies.length, decisions);
      if (last.finish_reason === 'max_hops') {
        assert.equal(decisions, fixtures.agents.agents[agentOf(scenario)]!.max_hops);
      }
    });

    it(`"${scenario.id}" states the max_hops of its agent, when it states one`, () => {
      if (scenario.max_hops !== undefined)
        assert.equal(scenario.max_hops, fixtures.agents.agents[agentOf(scenario)]!.max_hops);
    });
  }

  it('names, in ON_PURPOSE, only calls that exist', () => {
    const calls = fixtures.scenarios.flatMap((scenario) =>
      scenario.replies.flatMap((reply) => reply.tool_calls.map((call) => `${scenario.id} ${call.id}`)),
    );
    for (const key of Object.keys(ON_PURPOSE)) assert.ok(calls.includes(key), `${key}: ${ON_PURPOSE[key]}`);
  });

  it('has a unique user message per agent', () => {
    const seen = new Set<string>();
    for (const scenario of fixtures.scenarios) {
      const key = `${agentOf(scenario)}: ${scenario.user_message.trim().toLowerCase()}`;
      assert.ok(!seen.has(key), `duplicate ${key}`);
      seen.add(key);
    }
  });

  it('lets cookie-shop place one top-level row per call, each narrated in the reply that places it', () => {
    const shop = fixtures.scenarios.find((scenario) => scenario.id === 'cookie-shop')!;
    assert.equal(shop.user_message, 'Build a homepage for a cookie shop');
    const placing = shop.replies.filter((reply) => reply.tool_calls.some((call) => call.name === 'place_components'));
    assert.ok(placing.length >= 4);
    for (const reply of placing) {
      assert.equal(reply.tool_calls.length, 1);
      assert.ok(reply.text.length > 0);
      const operations = JSON.parse(reply.tool_calls[0]!.arguments).operations;
      assert.equal(operations.length, 1);
      assert.equal(parse(operations[0].components.replace(/\{\{placed\.\d+\}\}/g, 'x')).length, 1, 'one top-level row');
    }
  });
});

describe('the scenarios against the shared tools', () => {
  const run = (scenario: Scenario, replyIndex: number) => {
    const agent = fixtures.agents.agents[agentOf(scenario)]!;
    return executeToolCalls(scenario.replies[replyIndex]!.tool_calls, {
      tools: builtinTools,
      toolSettings: agent.tool_settings,
      catalog: fixtures.catalog,
      document: { layout: fixtures.layouts[scenario.layout]!, page: {} },
      pageFields: fixtures.agents.page_fields,
      newUuid: () => crypto.randomUUID(),
    });
  };

  it('rejects the invalid placement of validation-error-recovery for its theme, with no output', async () => {
    const executed = await run(fixtures.scenarios.find((scenario) => scenario.id === 'validation-error-recovery')!, 0);
    assert.deepEqual(executed.outputs, []);
    assert.equal(executed.results[0]!.ok, false);
    assert.match(executed.results[0]!.content, /theme/);
    assert.match(executed.results[0]!.content, /midnight/);
  });

  it('does not execute the second placement of parallel-place-rejected and tells the configured message', async () => {
    const executed = await run(fixtures.scenarios.find((scenario) => scenario.id === 'parallel-place-rejected')!, 0);
    assert.deepEqual(
      executed.outputs.map((output) => output.call_id),
      ['call_hero'],
    );
    assert.equal(executed.results[1]!.ok, false);
    assert.equal(
      executed.results[1]!.content,
      fixtures.agents.agents.page_builder!.tool_settings.place_components!.parallel_message,
    );
  });
});

describe('the fixture loader', () => {
  async function withCopy(change: (dir: string) => Promise<void>): Promise<unknown> {
    const dir = await mkdtemp(join(tmpdir(), 'canvas-fixtures-'));
    try {
      await cp(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
      await change(dir);
      await loadFixtures(dir);
      return undefined;
    } catch (error) {
      return error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('names the file and the key of an invalid scenario', async () => {
    const error = await withCopy(async (dir) => {
      const file = join(dir, 'scenarios', 'qa-one-hop.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replace('finish_reason: answer', 'finish_reason: done'));
    });
    assert.ok(error instanceof FixtureError);
    assert.match(error.message, /qa-one-hop\.yaml: hops\.0\.finish_reason: /);
  });

  it('names the file of YAML that does not parse', async () => {
    const error = await withCopy(async (dir) => writeFile(join(dir, 'catalog.yaml'), 'components: [unclosed'));
    assert.ok(error instanceof FixtureError);
    assert.match(error.message, /catalog\.yaml: is not valid YAML/);
  });

  it('refuses an agents config whose main agent is not defined, naming the key', async () => {
    const error = await withCopy(async (dir) => {
      const file = join(dir, 'agents.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replace('main_agent: qa', 'main_agent: nobody'));
    });
    assert.ok(error instanceof FixtureError);
    assert.match(error.message, /agents\.yaml: main_agent: /);
  });

  it('refuses a scenario whose layout fixture does not exist', async () => {
    const error = await withCopy(async (dir) => {
      const file = join(dir, 'scenarios', 'edit-selected.yaml');
      await writeFile(
        file,
        (await readFile(file, 'utf8')).replace('layout: layouts/nested.yaml', 'layout: layouts/missing.yaml'),
      );
    });
    assert.ok(error instanceof FixtureError);
    assert.match(error.message, /edit-selected\.yaml: layout: no layout fixture "layouts\/missing\.yaml"/);
  });

  it('refuses a layout or an attachment named like an inherited property ("constructor", "toString")', async () => {
    const layout = await withCopy(async (dir) => {
      const file = join(dir, 'scenarios', 'edit-selected.yaml');
      await writeFile(
        file,
        (await readFile(file, 'utf8')).replace('layout: layouts/nested.yaml', 'layout: constructor'),
      );
    });
    assert.ok(layout instanceof FixtureError);
    assert.match(layout.message, /edit-selected\.yaml: layout: no layout fixture "constructor"/);
    const attachment = await withCopy(async (dir) => {
      const file = join(dir, 'scenarios', 'image-attachment.yaml');
      const text = await readFile(file, 'utf8');
      assert.match(text, /file: attachments\/[a-z-]+\.png/);
      await writeFile(file, text.replace(/file: attachments\/[a-z-]+\.png/, 'file: toString'));
    });
    assert.ok(attachment instanceof FixtureError);
    assert.match(attachment.message, /image-attachment\.yaml: attachments\.0\.file: no image "toString"/);
  });

  it('wants a scenario id equal to its file name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'canvas-scenarios-'));
    try {
      const text = await readFile(join(DEFAULT_FIXTURES_DIR, 'scenarios', 'qa-one-hop.yaml'), 'utf8');
      await mkdir(join(dir, 'more'));
      await writeFile(join(dir, 'more', 'renamed.yaml'), text);
      await assert.rejects(
        loadScenario(join(dir, 'more', 'renamed.yaml')),
        /renamed\.yaml: id: "qa-one-hop" should match the file name/,
      );
      await writeFile(join(dir, 'qa-one-hop.yaml'), text);
      assert.deepEqual(
        (await loadScenarios(dir)).map((scenario) => scenario.id),
        ['qa-one-hop'],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
