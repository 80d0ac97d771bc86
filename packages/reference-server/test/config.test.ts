import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AgentsConfig, type Catalog } from '@canvas-ai/protocol';
import { parse, stringify } from 'yaml';
import { createApp } from '../src/app.js';
import { ConfigError } from '../src/config-error.js';
import { loadProjectDocs } from '../src/agents/docs.js';
import { FIXTURES_DIR, loadConfig } from '../src/config.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { silentLogger } from '../src/log.js';
import type { JsonBody } from './support/harness.js';

const agentsYaml = parse(await readFile(`${FIXTURES_DIR}agents.yaml`, 'utf8'));
const dir = await mkdtemp(join(tmpdir(), 'canvas-ai-config-'));

/** Writes a variant of the fixtures' agents.yaml and loads it the way the CLI does. */
async function loadVariant(name: string, change: (config: JsonBody) => void) {
  const config = structuredClone(agentsYaml);
  change(config);
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, stringify(config));
  const loaded = await loadConfig({ agentsFile: file, docsRoot: dir });
  createApp({
    agents: loaded.agents,
    agentsSource: loaded.agentsFile,
    catalog: loaded.catalog,
    provider: new ScriptedProvider([]),
    log: silentLogger,
  });
  return file;
}

describe('agents config validated at start-up', () => {
  it('loads the fixtures as they are', async () => {
    const loaded = await loadConfig();
    assert.equal(loaded.agents.main_agent, 'qa');
    assert.ok(loaded.scenarios.length >= 9);
    assert.match(loaded.docs, /## README\.md/, 'the project README is part of the docs');
    createApp({
      agents: loaded.agents,
      catalog: loaded.catalog,
      provider: new ScriptedProvider(loaded.scenarios),
      log: silentLogger,
    });
  });

  it('names the file, the key and the fix for an agent naming a tool that does not exist', async () => {
    const file = join(dir, 'unknown-tool.yaml');
    await assert.rejects(
      loadVariant('unknown-tool', (config) => config.agents.page_builder.tools.push('delete_page')),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(
          error.problems[0],
          `${file}: agents.page_builder.tools.8: there is no tool "delete_page". Use one of: place_components, edit_components, ` +
            'set_page_value, remove_components, move_components, get_component_details, ask_question, request_screenshot; or register the tool with createApp({ tools }) (see "Adding a tool" in the server README).',
        );
        return true;
      },
    );
  });

  it('names a tool setting for a tool the agent does not have', async () => {
    await assert.rejects(
      loadVariant(
        'stray-setting',
        (config) => (config.agents.copy_editor.tool_settings = { place_components: { allow_parallel: false } }),
      ),
      /agents\.copy_editor\.tool_settings\.place_components: "copy_editor" does not have the tool "place_components"\. Add it to agents\.copy_editor\.tools or remove the setting\./,
    );
  });

  it('names the file and key when the main agent is also listed as a tool', async () => {
    await assert.rejects(
      loadVariant('main-in-tools', (config) => config.tools.push('qa')),
      (error: Error) =>
        error.message.includes('main-in-tools.yaml') &&
        /tools\.2: "qa" is the main agent; remove it from tools/.test(error.message),
    );
  });

  it('names the file and key for an unknown agent id', async () => {
    await assert.rejects(
      loadVariant('unknown-agent', (config) => config.tools.push('translator')),
      (error: Error) =>
        error.message.includes('unknown-agent.yaml') &&
        /tools\.2: tools names "translator", which is not defined under agents/.test(error.message),
    );
    await assert.rejects(
      loadVariant('unknown-main', (config) => (config.main_agent = 'helper')),
      (error: Error) =>
        error.message.includes('unknown-main.yaml') &&
        /main_agent: main_agent "helper" is not defined under agents/.test(error.message),
    );
  });

  it('refuses a config breaking several settings rules with one line per problem, each naming the file', async () => {
    const file = join(dir, 'settings-rules.yaml');
    await assert.rejects(
      loadVariant('settings-rules', (config) => {
        config.agents.vendor = { label: 'Vendor', description: 'A third party.', system_prompt: 'Sell.' };
        config.main_agent = 'vendor';
        config.tools = ['page_builder', 'page_builder', 'ghost'];
      }),
      (error: Error) => {
        assert.deepEqual(error.message.split('\n'), [
          `${file}: main_agent: main_agent "vendor" is not a canvas agent; add it to canvas_agents or pick one of: qa, page_builder, copy_editor`,
          `${file}: tools.1: "page_builder" is listed twice in tools; list it once`,
          `${file}: tools.2: tools names "ghost", which is not defined under agents (defined: qa, page_builder, copy_editor, vendor)`,
        ]);
        return true;
      },
    );
  });

  it('refuses a catalog object with a derived prop that is required or has a default, one line each (spec §10.1)', () => {
    const catalog = {
      components: [
        {
          id: 'x.heading',
          name: 'Heading',
          description: 'A heading.',
          props: {
            anchor: { type: 'string', derived: true, required: true },
            slug: { type: 'string', derived: true, required: false, default: 'top' },
          },
          slots: {},
        },
      ],
      image_origins: [],
    } as Catalog;
    assert.throws(
      () =>
        createApp({
          agents: AgentsConfig.parse(parse('main_agent: a\nagents: {a: {label: A, description: A, system_prompt: A}}')),
          catalog,
          provider: new ScriptedProvider([]),
          log: silentLogger,
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        JSON.stringify(error.problems) ===
          JSON.stringify([
            'createApp catalog: x.heading.props.anchor: a derived prop cannot be required (spec §10.1)',
            'createApp catalog: x.heading.props.slug: a derived prop cannot have a default (spec §10.1)',
          ]),
    );
  });

  it('refuses a backend tool whose name is already taken', () => {
    const tool = {
      name: 'place_components',
      description: 'x',
      input: {} as never,
      allowParallel: true,
      execute: () => ({ result: '' }),
    };
    assert.throws(
      () =>
        createApp({
          agents: parse('main_agent: a\nagents: {a: {label: A, description: A, system_prompt: A}}') as never,
          catalog: {} as never,
          provider: new ScriptedProvider([]),
          tools: [tool],
          log: silentLogger,
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'createApp({ tools }): tools.0.name: a tool named "place_components" already exists; give the added tool another name.',
    );
  });

  it('refuses backend tools whose names are not snake_case, naming every one', () => {
    const tool = (name: string) => ({
      name,
      description: 'x',
      input: {} as never,
      allowParallel: true,
      execute: () => ({ result: '' }),
    });
    assert.throws(
      () =>
        createApp({
          agents: parse('main_agent: a\nagents: {a: {label: A, description: A, system_prompt: A}}') as never,
          catalog: {} as never,
          provider: new ScriptedProvider([]),
          tools: [tool('Lookup'), tool('stock_level'), tool('price-check')],
          log: silentLogger,
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'createApp({ tools }): tools.0.name: "Lookup" is not snake_case (a-z, 0-9, _); agents configs name tools that way.',
          'createApp({ tools }): tools.2.name: "price-check" is not snake_case (a-z, 0-9, _); agents configs name tools that way.',
        ]);
        return true;
      },
    );
  });

  it('reads the documentation that exists and skips what does not', async () => {
    await writeFile(join(dir, 'README.md'), '# Hello docs\n');
    const docs = await loadProjectDocs(dir);
    assert.equal(docs, '## README.md\n\n# Hello docs');
  });
});
