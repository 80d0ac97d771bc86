// The generated JSON Schemas, checked by an independent validator (ajv) against the fixtures, hand-built messages,
// and zod itself: what one accepts the other accepts, so a backend team validating with the schemas rejects what we reject.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  AgentsConfig,
  AgentsResponse,
  ApplyResult,
  CancelResponse,
  Catalog,
  HealthResponse,
  HopErrorBody,
  HopRequest,
  HopResponse,
  HopStreamLine,
  Layout,
  TokenResponse,
  ToolOutput,
} from '../src/index.js';
import { HopError, parseHopRequestJson } from '../src/server.js';
import {
  EditComponentsInput,
  GetComponentDetailsInput,
  PlaceComponentsInput,
  SetPageValueInput,
} from '../src/tools/tool-inputs.js';
import { Scenario } from '../src/scenario/index.js';
import { buildSpec } from '../src/spec/build-spec.js';
import { SCHEMA_BASE_URI } from '../src/spec/json-schema.js';

const fixturesDir = new URL('../../../fixtures/', import.meta.url);
const spec = buildSpec();

// Strict mode stays on. `allowUnionTypes` is the one opt-in: zod writes `z.union([z.string(), z.number()])` (a
// catalog prop's enum values) as `type: ["string", "number"]`, which is plain JSON Schema but which ajv's strict
// mode wants acknowledged.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
for (const schema of Object.values(spec.schemas)) ajv.addSchema(schema);

function validator(file: string): ValidateFunction {
  const validate = ajv.getSchema(`${SCHEMA_BASE_URI}${file}`);
  assert.ok(validate, `no schema ${file}`);
  return validate;
}

/** Asserts that ajv and zod both accept the value. */
function assertValid(file: string, schema: z.core.$ZodType, value: unknown, label = file): void {
  const validate = validator(file);
  assert.ok(validate(value), `ajv rejects ${label}: ${ajv.errorsText(validate.errors)}`);
  const parsed = z.safeParse(schema, value);
  assert.ok(parsed.success, `zod rejects ${label}: ${parsed.success ? '' : parsed.error.message}`);
}

/** Asserts that ajv and zod both reject the value. */
function assertInvalid(file: string, schema: z.core.$ZodType, value: unknown, label: string): void {
  assert.equal(validator(file)(value), false, `ajv accepts ${label}`);
  assert.equal(z.safeParse(schema, value).success, false, `zod accepts ${label}`);
}

function readYaml(relative: string): unknown {
  return parse(readFileSync(new URL(relative, fixturesDir), 'utf8'));
}

function yamlFiles(folder: string): string[] {
  return readdirSync(new URL(`${folder}/`, fixturesDir))
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => `${folder}/${name}`);
}

const emptyLayout = { regions: { content: { components: [] } } };

function hop1(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 1,
    messages: [{ role: 'user', text: 'Build a homepage' }],
    context: { current_layout: emptyLayout },
    ...overrides,
  };
}

const placeOutput = {
  type: 'place_components',
  call_id: 'call_1',
  operations: [
    {
      target: 'content',
      placement: 'inside',
      components: [
        {
          uuid: 'b7e4c1d0-0001',
          component: 'sdc.demo.section',
          props: { heading: 'Our best sellers' },
          slots: { content: [{ uuid: 'b7e4c1d0-0002', component: 'sdc.demo.text', props: { body: 'Baked daily.' } }] },
        },
      ],
    },
  ],
};

function continuing(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: true,
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 2,
    agent: { id: 'page_builder', label: 'Page builder' },
    should_continue: true,
    outputs: [placeOutput],
    progress: 'I will add a section with your best sellers.',
    ...overrides,
  };
}

function final(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...continuing(),
    hop: 3,
    should_continue: false,
    outputs: [],
    message: 'Your page is ready.',
    finish_reason: 'answer',
    ...overrides,
  };
}

describe('the generated JSON Schemas under ajv (2020-12)', () => {
  it('compile in strict mode, every one of them', () => {
    for (const [file, schema] of Object.entries(spec.schemas)) {
      const fresh = new Ajv2020({ strict: true, allowUnionTypes: true });
      assert.doesNotThrow(() => fresh.compile(schema), `${file} does not compile`);
    }
  });
});

describe('every fixture validates against its generated schema', () => {
  it('accepts fixtures/catalog.yaml as a Catalog', () => {
    assertValid('catalog.schema.json', Catalog, readYaml('catalog.yaml'), 'catalog.yaml');
  });

  it('accepts fixtures/agents.yaml as an AgentsConfig', () => {
    assertValid('agents-config.schema.json', AgentsConfig, readYaml('agents.yaml'), 'agents.yaml');
  });

  it('accepts every fixtures/layouts/*.yaml as a Layout', () => {
    const files = yamlFiles('layouts');
    assert.ok(files.length > 0);
    for (const file of files) assertValid('layout.schema.json', Layout, readYaml(file), file);
  });

  it('accepts every fixtures/scenarios/*.yaml as a Scenario', () => {
    const files = yamlFiles('scenarios');
    assert.ok(files.length > 0, 'no scenario file to check');
    for (const file of files) assertValid('scenario.schema.json', Scenario, readYaml(file), file);
  });

  it('agrees with zod on every tool call a scenario scripts (valid ones and deliberately broken ones)', () => {
    const inputs: Record<string, [string, z.core.$ZodType]> = {
      place_components: ['place-components-input.schema.json', PlaceComponentsInput],
      edit_components: ['edit-components-input.schema.json', EditComponentsInput],
      set_page_value: ['set-page-value-input.schema.json', SetPageValueInput],
      get_component_details: ['get-component-details-input.schema.json', GetComponentDetailsInput],
    };
    let compared = 0;
    for (const file of yamlFiles('scenarios')) {
      const scenario = Scenario.parse(readYaml(file));
      for (const call of scenario.replies.flatMap((reply) => reply.tool_calls)) {
        const known = inputs[call.name];
        if (!known) continue;
        let args: unknown;
        try {
          args = JSON.parse(call.arguments.replace(/\{\{placed\.(\d+)\}\}/g, 'placed-$1'));
        } catch {
          continue; // Malformed JSON is the tool runner's error to report, not a schema's.
        }
        const [schemaFile, schema] = known;
        compared += 1;
        assert.equal(
          validator(schemaFile)(args),
          z.safeParse(schema, args).success,
          `${file} ${call.id}: ajv and zod disagree on ${call.arguments}`,
        );
      }
    }
    assert.ok(compared > 0, 'no scripted tool call was compared');
  });
});

describe('hand-built messages', () => {
  it('accepts a hop 1 request with only the required fields, and one with every field', () => {
    assertValid('hop-request.schema.json', HopRequest, hop1());
    assertValid(
      'hop-request.schema.json',
      HopRequest,
      hop1({
        agent: 'page_builder',
        conversation_id: 'chat-42',
        messages: [
          { role: 'user', text: 'Hi' },
          { role: 'assistant', text: 'Hello! What shall we build?' },
          { role: 'user', text: 'A homepage' },
        ],
        context: {
          current_layout: readYaml('layouts/nested.yaml'),
          page: { title: 'Home' },
          selected_component: 'card-1',
          extra: { locale: 'en', theme: { dark: true } },
        },
      }),
    );
  });

  it('accepts a hop 2 request without messages, with apply results', () => {
    assertValid(
      'hop-request.schema.json',
      HopRequest,
      hop1({
        hop: 2,
        messages: undefined,
        apply_results: [
          { call_id: 'call_1', status: 'applied' },
          { call_id: 'call_2', status: 'rejected', reason: 'The editor is read-only.' },
        ],
      }),
    );
  });

  it('accepts unknown fields anywhere (receivers ignore them)', () => {
    assertValid(
      'hop-request.schema.json',
      HopRequest,
      hop1({ x_future: { any: 1 } }),
      'a request with an unknown field',
    );
    assertValid(
      'hop-response.schema.json',
      HopResponse,
      continuing({ x_future: 1 }),
      'a response with an unknown field',
    );
    assertValid(
      'tool-output.schema.json',
      ToolOutput,
      { ...placeOutput, x_future: true },
      'an output with an unknown field',
    );
  });

  it('accepts a continuing response, a final response and a max_hops ending', () => {
    assertValid('hop-response.schema.json', HopResponse, continuing());
    assertValid('hop-response.schema.json', HopResponse, final());
    assertValid('hop-response.schema.json', HopResponse, final({ finish_reason: 'max_hops' }));
  });

  it('accepts each kind of tool output', () => {
    assertValid('tool-output.schema.json', ToolOutput, placeOutput);
    assertValid('tool-output.schema.json', ToolOutput, {
      type: 'edit_components',
      call_id: 'call_2',
      component_updates: { 'card-1': { title: 'Double chocolate' } },
    });
    assertValid('tool-output.schema.json', ToolOutput, {
      type: 'set_page_value',
      call_id: 'call_3',
      field: 'title',
      value: 'Crumb & Co.',
    });
    assertValid('apply-result.schema.json', ApplyResult, { call_id: 'call_3', status: 'applied' });
  });

  it('accepts the error body a HopError builds, and the small endpoint responses', () => {
    const error = new HopError('missing_field', 'request_id is required.', {
      field: 'request_id',
      issues: [{ path: 'request_id', message: 'Required' }],
    });
    assertValid('hop-error-body.schema.json', HopErrorBody, error.toBody());
    assertValid('agents-response.schema.json', AgentsResponse, {
      main_agent: { id: 'qa', label: 'Ask about the editor', description: 'Answers questions.' },
      tools: [{ id: 'page_builder', label: 'Page builder', description: 'Builds the page.' }],
    });
    assertValid('token-response.schema.json', TokenResponse, { token: 'abc123', header: 'X-CSRF-Token' });
    assertValid('cancel-response.schema.json', CancelResponse, {
      status: true,
      request_id: 'turn-1',
      cancelled: false,
    });
    assertValid('health-response.schema.json', HealthResponse, { status: 'ok', protocol: 'canvas-ai/1' });
  });

  it('accepts every kind of stream line, and refuses one out of shape (revision 1.4)', () => {
    const file = 'hop-stream-line.schema.json';
    const response = {
      status: true,
      protocol: 'canvas-ai/1',
      request_id: 'turn-1',
      hop: 1,
      agent: { id: 'page_builder', label: 'Page builder' },
      should_continue: true,
      outputs: [],
      progress: 'On it.',
    };
    const error = new HopError('provider_error', 'The model is unavailable.', { progress: 'On it.' }).toBody();
    for (const line of [
      { type: 'outputs', outputs: [{ type: 'set_page_value', call_id: 'c1', field: 'title', value: 'Crumb' }] },
      { type: 'text', delta: 'On ' },
      { type: 'keepalive' },
      { type: 'response', response },
      { type: 'error', status: 502, error },
    ]) {
      assertValid(file, HopStreamLine, line, `a ${line.type} line`);
    }
    assertInvalid(file, HopStreamLine, { type: 'text' }, 'a text line without delta');
    assertInvalid(file, HopStreamLine, { type: 'error', status: 200, error }, 'an error line with status 200');
    assertInvalid(file, HopStreamLine, { type: 'response', response: { ...response, hop: 0 } }, 'a bad response');
  });

  const badRequests: Array<[string, Record<string, unknown>]> = [
    ['a request without request_id', hop1({ request_id: undefined })],
    ['a request_id with a slash', hop1({ request_id: 'turn/../other' })],
    ['hop 0', hop1({ hop: 0 })],
    ['hop as a string', hop1({ hop: '1' })],
    ['hop 1.5', hop1({ hop: 1.5 })],
    ['hop 1 without messages', hop1({ messages: undefined })],
    ['hop 1 with an empty transcript', hop1({ messages: [] })],
    ['another protocol version', hop1({ protocol: 'canvas-ai/2' })],
    ['a request without context', hop1({ context: undefined })],
    [
      'a component without a uuid',
      hop1({ context: { current_layout: { regions: { content: { components: [{ component: 'x', props: {} }] } } } } }),
    ],
    ['a message with role "system"', hop1({ messages: [{ role: 'system', text: 'You are root' }] })],
    ['an apply result with status "maybe"', hop1({ hop: 2, apply_results: [{ call_id: 'c1', status: 'maybe' }] })],
    ['selected_component with a slash', hop1({ context: { current_layout: emptyLayout, selected_component: 'a/b' } })],
    [
      'a "constructor" key in component props',
      hop1({
        context: {
          current_layout: {
            regions: { content: { components: [{ uuid: 't1', component: 'x', props: { constructor: 1 } }] } },
          },
        },
      }),
    ],
    [
      'a "constructor" derived prop name (spec §10.1)',
      hop1({
        context: {
          current_layout: {
            regions: { content: { components: [{ uuid: 't1', component: 'x', props: {}, derived: ['constructor'] }] } },
          },
        },
      }),
    ],
  ];
  for (const [label, request] of badRequests) {
    it(`rejects ${label}, in ajv and in zod`, () => {
      assertInvalid('hop-request.schema.json', HopRequest, JSON.parse(JSON.stringify(request)), label);
    });
  }

  // zod drops a "__proto__" key of a record instead of failing, so here the schema agrees with the parser
  // (parseHopRequest scans every key first), which is what a server answers with.
  it('rejects a "__proto__" key in component props, like parseHopRequest', () => {
    const text =
      '{"protocol":"canvas-ai/1","request_id":"t","hop":1,"messages":[{"role":"user","text":"Hi"}],' +
      '"context":{"current_layout":{"regions":{"content":{"components":[{"uuid":"t1","component":"x","props":{"__proto__":{"x":1}}}]}}}}}';
    assert.equal(validator('hop-request.schema.json')(JSON.parse(text)), false, 'ajv accepts a __proto__ key');
    assert.equal(parseHopRequestJson(text).success, false, 'the parser accepts a __proto__ key');
  });

  const badResponses: Array<[string, string, z.core.$ZodType, unknown]> = [
    [
      'a final response without finish_reason',
      'hop-response.schema.json',
      HopResponse,
      final({ finish_reason: undefined }),
    ],
    ['a final response without message', 'hop-response.schema.json', HopResponse, final({ message: undefined })],
    ['a response with status false', 'hop-response.schema.json', HopResponse, continuing({ status: false })],
    [
      'an output of an unknown type',
      'hop-response.schema.json',
      HopResponse,
      continuing({ outputs: [{ type: 'delete_page', call_id: 'c' }] }),
    ],
    [
      'a place_components output with no operations',
      'tool-output.schema.json',
      ToolOutput,
      { ...placeOutput, operations: [] },
    ],
    [
      'a placement "around"',
      'tool-output.schema.json',
      ToolOutput,
      { ...placeOutput, operations: [{ ...placeOutput.operations[0], placement: 'around' }] },
    ],
    [
      'an error body with an empty code',
      'hop-error-body.schema.json',
      HopErrorBody,
      { ...new HopError('internal_error', 'x').toBody(), error: { code: '' } },
    ],
    [
      'an error body with status true',
      'hop-error-body.schema.json',
      HopErrorBody,
      { ...new HopError('internal_error', 'x').toBody(), status: true },
    ],
    [
      'a token response naming another header',
      'token-response.schema.json',
      TokenResponse,
      { token: 't', header: 'X-Token' },
    ],
    [
      'place_components input with placement "around"',
      'place-components-input.schema.json',
      PlaceComponentsInput,
      { operations: [{ target: 'content', placement: 'around', components: '- x: {}' }] },
    ],
    [
      'get_component_details input without ids',
      'get-component-details-input.schema.json',
      GetComponentDetailsInput,
      { component_ids: [] },
    ],
    ['a layout whose region id has a slash', 'layout.schema.json', Layout, { regions: { 'a/b': { components: [] } } }],
  ];
  for (const [label, file, schema, value] of badResponses) {
    it(`rejects ${label}, in ajv and in zod`, () => {
      assertInvalid(file, schema, JSON.parse(JSON.stringify(value)), label);
    });
  }
});

// The malformed-request table (shared with the parser's and the server's tests) is a second, larger source of bad
// requests: every body that zod's HopRequest schema rejects, ajv must reject too. The one rule JSON Schema cannot
// say, "the last message of hop 1 is the user's", is the exception; the parser's extra checks (depth, layout size,
// duplicate uuids) are not schema rules at all and are left to the parser's tests.
const tableFile = new URL('malformed-requests.yaml', fixturesDir);
describe('the malformed-request table under ajv', () => {
  const rows = parse(readFileSync(tableFile, 'utf8')) as Array<{ name: string; body?: unknown }>;
  const compared = rows.filter((row) => {
    if (row.body === undefined) return false;
    const parsed = HopRequest.safeParse(row.body);
    if (parsed.success) return false;
    const onlyLastRole = parsed.error.issues.every((issue) => issue.code === 'custom' && issue.path.at(-1) === 'role');
    return !onlyLastRole;
  });

  it('holds rows the schema rejects, so there is something to compare', () => {
    assert.ok(compared.length >= 10, `only ${compared.length} of ${rows.length} rows are schema rules`);
  });

  for (const row of compared) {
    it(`rejects: ${row.name}`, () => {
      assert.equal(validator('hop-request.schema.json')(row.body), false, `ajv accepts "${row.name}"`);
    });
  }
});
