import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { HopResponse } from '@canvas-ai/protocol';
import { builtinTools } from '@canvas-ai/protocol/server';
import { driveScenario, type Scenario } from '@canvas-ai/protocol/scenario';
import { ConfigError } from '../src/config-error.js';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { AnthropicProvider, type AnthropicOptions } from '../src/providers/anthropic.js';
import { anthropicMessages } from '../src/providers/anthropic-messages.js';
import { anthropicProviderFromEnv } from '../src/providers/from-env.js';
import type { ModelRequest } from '../src/providers/model-provider.js';
import type { ModelMessage } from '../src/providers/model-provider.js';
import { startFakeAnthropic, type FakeAnthropicBehaviour, type FakeAnthropicStep } from './support/fake-anthropic.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type JsonBody,
} from './support/harness.js';

const fixtures = await sharedFixtures();
const BUILDER = { agent: 'page_builder' };
const HERO_ARGS = JSON.stringify({
  operations: [
    {
      target: 'content',
      placement: 'inside',
      components: '- sdc.demo.hero:\n    props:\n      heading: Crumb & Co.\n',
    },
  ],
});

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A fake Messages endpoint and a provider pointed at it; closed after the file. */
async function fakeModel(queue: FakeAnthropicBehaviour[], options: Partial<AnthropicOptions> = {}) {
  const fake = await startFakeAnthropic(queue);
  cleanups.push(fake.close);
  const provider = new AnthropicProvider({
    model: 'claude-fake',
    apiKey: 'sk-ant-test',
    baseURL: fake.baseURL,
    timeoutMs: 10_000,
    maxRetries: 0,
    ...options,
  });
  return { fake, provider };
}

/** The reference server with the Anthropic provider pointed at a fake endpoint, and a session on it. */
async function serverWithFakeModel(queue: FakeAnthropicBehaviour[], options: Partial<AnthropicOptions> = {}) {
  const { fake, provider } = await fakeModel(queue, options);
  const server = await startTestServer({ provider });
  cleanups.push(() => server.close());
  return { fake, server, session: await openSession(server) };
}

/** A model request as the hop would make it, for calling the provider directly. */
function modelRequest(messages: ModelMessage[], onText?: (delta: string) => void): ModelRequest {
  return {
    agentId: 'page_builder',
    mainAgent: 'assistant',
    system: 'You build pages.',
    messages,
    tools: [builtinTools.place_components, builtinTools.set_page_value],
    turn: { userMessage: 'Add a hero', decision: 1, placedUuids: [], selectedComponent: null },
    onText,
  };
}

const USER_ONLY: ModelMessage[] = [{ role: 'user', text: 'Add a hero', attachments: [] }];

/**
 * A fake model that plays a scenario's replies as tool_use, reading what it needs from its conversation as a real
 * model would: `{{placed.N}}` is the Nth uuid the tool results so far reported as assigned.
 */
function playScenario(scenario: Scenario): FakeAnthropicBehaviour[] {
  return scenario.replies.map((reply) => (body: JsonBody): FakeAnthropicStep => {
    const placed: string[] = [];
    for (const message of body.messages) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type !== 'tool_result' || !String(block.content).startsWith('Placed ')) continue;
        const assigned = String(block.content).split('\n\n')[0]!;
        for (const match of assigned.matchAll(/^\s*- [\w.]+: ([0-9a-f-]{36}) \((?:(?:above|below) \S+ )?in /gm))
          placed.push(match[1]!);
      }
    }
    const words = reply.text.split(/(?<= )/);
    return {
      text: reply.text === '' ? undefined : words,
      tool_uses: reply.tool_calls.map((call) => ({
        id: call.id,
        name: call.name,
        input: call.arguments.replace(/\{\{placed\.(\d+)\}\}/g, (_m, n: string) => placed[Number(n) - 1]!),
      })),
      usage: { input_tokens: 50, cache_creation_input_tokens: 900, cache_read_input_tokens: 2000, output_tokens: 40 },
    };
  });
}

/** Removes the prompt-cache markers, to compare what two calls send apart from where the breakpoints sit. */
function withoutBreakpoints(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner) => (key === 'cache_control' ? undefined : inner)));
}

/** Every path in `value` that carries a `cache_control`. */
function breakpoints(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => breakpoints(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'cache_control' ? [path] : breakpoints(inner, path ? `${path}.${key}` : key),
  );
}

describe('the Anthropic provider against a local Messages endpoint', () => {
  it('plays the whole cookie-shop turn through the server, the fake model answering with tool_use', async () => {
    const scenario = fixtures.scenarios.find((candidate) => candidate.id === 'cookie-shop')!;
    const { fake, server, session } = await serverWithFakeModel(playScenario(scenario));
    const run = await driveScenario(scenario, { endpoint: server.hopUrl, fixtures, headers: () => session.headers() });
    assert.deepEqual(
      run.hops.flatMap((hop) => hop.mismatches),
      [],
      'every hop matches the fixture',
    );
    assert.equal(run.passed, true);
    assert.equal(run.document.page.title, 'Crumb & Co. | Fresh cookies, baked every morning');
    assert.equal(fake.requests.length, scenario.replies.length, 'one model call per decision');

    const bodies = fake.requests.map((request) => request.body);
    const { headers } = fake.requests[0]!;
    assert.ok(
      headers['x-api-key'] === 'sk-ant-test' || headers.authorization === 'Bearer sk-ant-test',
      'the key is sent (as the library chooses: x-api-key or a bearer token)',
    );
    assert.ok(headers['anthropic-version'], 'the library names the API version');
    for (const [n, body] of bodies.entries()) {
      assert.equal(body.model, 'claude-fake');
      assert.equal(body.stream, true);
      assert.equal(body.max_tokens, 8192);
      assert.deepEqual(body.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
      assert.deepEqual(
        body.tools.map((tool: JsonBody) => tool.name),
        ['get_component_details', 'place_components', 'edit_components', 'set_page_value'],
      );
      assert.equal(body.tools[1].input_schema.type, 'object');
      assert.equal(body.system.length, 1);
      assert.match(body.system[0].text, /sdc\.demo\.hero \(Hero\)/);
      const lastMessage = body.messages.length - 1;
      const lastBlock = body.messages[lastMessage].content.length - 1;
      assert.deepEqual(
        breakpoints(body).sort(),
        [`messages[${lastMessage}].content[${lastBlock}]`, 'system[0]', `tools[${body.tools.length - 1}]`],
        `call ${n + 1}: breakpoints on the system prompt, the last tool and the last block, no more`,
      );
      assert.deepEqual(body.system[0].cache_control, { type: 'ephemeral' });
      body.messages.forEach((message: JsonBody, index: number) => {
        assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant', `call ${n + 1}: roles alternate`);
      });
      for (const [index, message] of body.messages.entries()) {
        if (message.role !== 'assistant') continue;
        const uses = message.content.filter((block: JsonBody) => block.type === 'tool_use');
        const results = body.messages[index + 1].content.slice(0, uses.length);
        assert.deepEqual(
          results.map((block: JsonBody) => [block.type, block.tool_use_id]),
          uses.map((use: JsonBody) => ['tool_result', use.id]),
          'each tool use is answered first thing in the next user message',
        );
      }
    }
    for (let n = 1; n < bodies.length; n += 1) {
      const before = withoutBreakpoints(bodies[n - 1]) as JsonBody;
      const now = withoutBreakpoints(bodies[n]) as JsonBody;
      assert.deepEqual(now.tools, before.tools, 'the tools never change within a turn');
      assert.deepEqual(
        now.messages.slice(0, before.messages.length),
        before.messages,
        `call ${n + 1} starts with everything call ${n} sent, so its cached prefix is reused`,
      );
    }
    // The title and the description: two tool uses in one reply, as the fixture has them, each answered.
    const last = bodies.at(-1).messages;
    assert.deepEqual(
      last
        .at(-2)
        .content.filter((block: JsonBody) => block.type === 'tool_use')
        .map((block: JsonBody) => block.id),
      ['call_6', 'call_7'],
    );
    assert.equal(last.at(-1).content.length, 2, 'both results are in one user message');
  });

  it('streams text deltas to onText in order, joins them into the reply, and maps the usage', async () => {
    const { provider } = await fakeModel([
      {
        text: ['I will ', 'add a ', 'hero', '.'],
        tool_uses: [{ id: 'toolu_1', name: 'place_components', input: HERO_ARGS, chunk: 7 }],
        usage: { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000, output_tokens: 55 },
      },
    ]);
    const deltas: string[] = [];
    const reply = await provider.decide(modelRequest(USER_ONLY, (delta) => deltas.push(delta)));
    assert.deepEqual(deltas, ['I will ', 'add a ', 'hero', '.']);
    assert.equal(reply.text, 'I will add a hero.');
    assert.deepEqual(reply.toolCalls, [{ id: 'toolu_1', name: 'place_components', arguments: HERO_ARGS }]);
    assert.deepEqual(reply.usage, { input_tokens: 4312, cached_input_tokens: 4000, output_tokens: 55 });
  });

  it('keeps a text and a tool use of one reply together: the text is narration, the call is parked', async () => {
    const { fake, session } = await serverWithFakeModel([
      { text: ['Adding a hero.'], tool_uses: [{ id: 'toolu_a', name: 'place_components', input: HERO_ARGS }] },
      { text: ['Done.'] },
    ]);
    const hop1 = HopResponse.parse((await session.hop(firstHop('an-1', 'Add a hero', BUILDER))).body);
    assert.equal(hop1.should_continue, true);
    assert.equal(hop1.progress, 'Adding a hero.');
    const hop2 = HopResponse.parse((await session.hop(laterHop('an-1', 2, EMPTY_LAYOUT, BUILDER))).body);
    assert.equal(hop2.outputs[0]?.call_id, 'toolu_a');
    const assistant = fake.requests[1]!.body.messages[1];
    assert.deepEqual(
      assistant.content.map((block: JsonBody) => block.type),
      ['text', 'tool_use'],
    );
    assert.deepEqual(assistant.content[1].input, JSON.parse(HERO_ARGS), 'the arguments go back as the input object');
  });

  it('keeps a tool use with broken input JSON: the next hop tells the model, and sends {} as its input', async () => {
    const { fake, session } = await serverWithFakeModel([
      { text: ['Adding.'], tool_uses: [{ id: 'toolu_bad', name: 'place_components', input: '{"operations": [' }] },
      { text: ['Let me fix that.'], tool_uses: [{ id: 'toolu_ok', name: 'place_components', input: HERO_ARGS }] },
    ]);
    assert.equal((await session.hop(firstHop('an-2', 'Add a hero', BUILDER))).status, 200);
    const hop2 = HopResponse.parse((await session.hop(laterHop('an-2', 2, EMPTY_LAYOUT, BUILDER))).body);
    assert.deepEqual(hop2.outputs, [], 'the broken call yields no output');
    assert.equal(hop2.should_continue, true);
    const [, assistant, results] = fake.requests[1]!.body.messages;
    assert.deepEqual(assistant.content[1], {
      type: 'tool_use',
      id: 'toolu_bad',
      name: 'place_components',
      input: {},
    });
    assert.equal(results.content[0].tool_use_id, 'toolu_bad');
    assert.match(results.content[0].content, /not valid JSON/);
  });

  it('ends the turn with an empty answer when the model replies with nothing at all', async () => {
    const { fake, session } = await serverWithFakeModel([{}]);
    const reply = await session.hop(firstHop('an-3', 'Hello?'));
    assert.equal(reply.status, 200);
    const body = HopResponse.parse(reply.body);
    assert.equal(body.should_continue, false);
    assert.equal(body.should_continue === false && body.message, '');
    assert.equal(fake.requests[0]!.body.tools, undefined, 'an agent without tools is offered none');
    assert.equal(fake.requests[0]!.body.tool_choice, undefined);
  });
});

describe('the Anthropic provider when the endpoint fails', () => {
  /** What the user is told of every failed model call. */
  const UNAVAILABLE = /^The model is unavailable right now, so this turn stopped\./;

  /** The `detail` of the provider error, as the server's log keeps it. */
  async function failure(provider: AnthropicProvider): Promise<string> {
    const error = await provider.decide(modelRequest(USER_ONLY)).then(
      () => assert.fail('the decision should fail'),
      (caught: unknown) => caught as { code: string; message: string; detail: string },
    );
    assert.equal(error.code, 'provider_error');
    assert.match(error.message, UNAVAILABLE);
    return error.detail;
  }

  it('retries a 429 after the retry-after it was given, and succeeds', async () => {
    const { fake, provider } = await fakeModel(
      [
        { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '0' } },
        { text: ['Hi.'] },
      ],
      { maxRetries: 1 },
    );
    assert.equal((await provider.decide(modelRequest(USER_ONLY))).text, 'Hi.');
    assert.equal(fake.requests.length, 2);
  });

  it('does not wait out a retry-after longer than it allows: it fails at once and says so in the log', async () => {
    const { fake, provider } = await fakeModel(
      [{ status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '3600' } }],
      { maxRetries: 1 },
    );
    assert.match(await failure(provider), /answered 429: .*asked to retry after 3600 s, longer than the 10000 ms/);
    assert.equal(fake.requests.length, 1);
  });

  it('retries a 500 and an overloaded error event before any text; a second 529 fails naming it', async () => {
    const retried = await fakeModel(
      [{ status: 500, type: 'api_error', message: 'oops' }, { error_event: 'overloaded_error' }, { text: ['Hi.'] }],
      { maxRetries: 2 },
    );
    assert.equal((await retried.provider.decide(modelRequest(USER_ONLY))).text, 'Hi.');
    assert.equal(retried.fake.requests.length, 3);

    const overloaded = await fakeModel(
      [
        { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after': '0' } },
        { status: 529, type: 'overloaded_error', message: 'Overloaded' },
      ],
      { maxRetries: 1 },
    );
    assert.match(await failure(overloaded.provider), /answered 529: .*Overloaded/);
    assert.equal(overloaded.fake.requests.length, 2);
  });

  it('retries a stream cut before any text, but not one after text was streamed (it would be shown twice)', async () => {
    const early = await fakeModel([{ text: ['lost'], cut: 'start' }, { text: ['Hi.'] }], { maxRetries: 1 });
    assert.equal((await early.provider.decide(modelRequest(USER_ONLY))).text, 'Hi.');
    assert.equal(early.fake.requests.length, 2);

    for (const [cut, said] of [
      ['text', /broke off mid-stream/],
      ['end', /ended before its last event \(message_stop\)/],
    ] as const) {
      const late = await fakeModel([{ text: ['Half a sen'], cut }, { text: ['Hi.'] }], { maxRetries: 1 });
      const deltas: string[] = [];
      const error = await late.provider.decide(modelRequest(USER_ONLY, (delta) => deltas.push(delta))).then(
        () => assert.fail('the decision should fail'),
        (caught: { code: string; detail: string }) => caught,
      );
      assert.equal(error.code, 'provider_error');
      assert.match(error.detail, said);
      assert.deepEqual(deltas, ['Half a sen']);
      assert.equal(late.fake.requests.length, 1, 'no retry once text was streamed');
    }
  });

  it('bounds the whole stream by the timeout: headers that come but no event, or no headers at all', async () => {
    for (const hang of ['events', 'headers'] as const) {
      const { provider } = await fakeModel([{ hang }], { timeoutMs: 300 });
      assert.match(await failure(provider), /did not finish its reply within 300 ms/, hang);
    }
  });

  it('turns 401, 404 and an unreachable endpoint into what to check, in the log only', async () => {
    const { server, session } = await serverWithFakeModel([
      { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
    ]);
    const failed = await session.hop(firstHop('an-4', 'Hi'));
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'provider_error');
    assert.match(failed.body.message, UNAVAILABLE);
    assert.doesNotMatch(JSON.stringify(failed.body), /x-api-key|127\.0\.0\.1/, 'no upstream text for the user');
    const logged = server.logs.filter((entry) => entry.event === 'hop_failed').at(-1);
    assert.match(String(logged?.detail), /answered 401: .*Check CANVAS_AI_ANTHROPIC_API_KEY/);
    assert.doesNotMatch(JSON.stringify(server.logs), /sk-ant-test/, 'the key itself is never logged');

    const missing = await fakeModel([{ status: 404, type: 'not_found_error', message: 'model: claude-fake' }]);
    assert.match(await failure(missing.provider), /Check CANVAS_AI_ANTHROPIC_MODEL \("claude-fake"\)/);

    const gone = await startFakeAnthropic([]);
    await gone.close();
    const unreachable = new AnthropicProvider({ model: 'm', apiKey: 'k', baseURL: gone.baseURL, maxRetries: 0 });
    assert.match(
      await failure(unreachable),
      /Could not reach the model at http:\/\/127\.0\.0\.1:\d+\/; check CANVAS_AI_ANTHROPIC_BASE_URL/,
    );
  });
});

describe('the conversation as Anthropic messages', () => {
  it('merges consecutive user content into one message, tool results first, and alternates from a user message', () => {
    const png = { name: 'a.png', media_type: 'image/png' as const, data: 'AAAA' };
    const messages = anthropicMessages([
      { role: 'assistant', text: 'Earlier answer.', tool_calls: [] },
      { role: 'user', text: 'Put this in a hero', attachments: [png] },
      {
        role: 'assistant',
        text: '',
        tool_calls: [
          { id: 'c1', name: 'place_components', arguments: '{"a":1}' },
          { id: 'c1~2', name: 'place_components', arguments: 'not json' },
        ],
      },
      { role: 'notice', text: 'The person moved a row.' },
      { role: 'tool', call_id: 'c1', name: 'place_components', content: 'Placed 1 component.' },
      { role: 'tool', call_id: 'c1~2', name: 'place_components', content: 'One row per call.' },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: '(The conversation so far.)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer.' }] },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'text', text: 'Put this in a hero' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'place_components', input: { a: 1 } },
          { type: 'tool_use', id: 'c1_2', name: 'place_components', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'Placed 1 component.' },
          { type: 'tool_result', tool_use_id: 'c1_2', content: 'One row per call.' },
          { type: 'text', text: '[Editor notice] The person moved a row.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });
});

describe('Anthropic configuration', () => {
  it('reads the provider from the environment, naming any missing or bad variable', () => {
    assert.throws(
      () => anthropicProviderFromEnv({}),
      (error: unknown) =>
        error instanceof ConfigError &&
        /CANVAS_AI_ANTHROPIC_MODEL: not set/.test(error.message) &&
        /CANVAS_AI_ANTHROPIC_API_KEY: not set/.test(error.message),
    );
    assert.throws(
      () =>
        anthropicProviderFromEnv({
          CANVAS_AI_ANTHROPIC_MODEL: 'm',
          CANVAS_AI_ANTHROPIC_API_KEY: 'k',
          CANVAS_AI_ANTHROPIC_TIMEOUT_MS: 'soon',
          CANVAS_AI_ANTHROPIC_MAX_TOKENS: '-1',
        }),
      /CANVAS_AI_ANTHROPIC_TIMEOUT_MS: "soon".*\n?.*CANVAS_AI_ANTHROPIC_MAX_TOKENS: "-1"/s,
    );
    const provider = anthropicProviderFromEnv({
      CANVAS_AI_ANTHROPIC_MODEL: 'claude-sonnet-4-5',
      CANVAS_AI_ANTHROPIC_API_KEY: 'k',
      CANVAS_AI_ANTHROPIC_TIMEOUT_MS: '60000',
    });
    assert.equal(provider.name, 'anthropic');
    assert.equal(provider.maxDecisionMs, 60_000 * 2 + 10_000);
  });

  it('starts with the defaults within the turn lock, and refuses a timeout that could outlast it, naming its variable', () => {
    const options = { agents: fixtures.agents, catalog: fixtures.catalog, log: silentLogger };
    const provider = new AnthropicProvider({ model: 'm', apiKey: 'k' });
    assert.equal(provider.maxDecisionMs, 250_000, 'two tries of 120 s and one wait of at most 10 s');
    assert.doesNotThrow(() => createApp({ ...options, provider }));
    const slow = new AnthropicProvider({ model: 'm', apiKey: 'k', timeoutMs: 200_000 });
    assert.throws(
      () => createApp({ ...options, provider: slow }),
      (error: unknown) =>
        error instanceof ConfigError && /CANVAS_AI_ANTHROPIC_TIMEOUT_MS .*410000 ms/.test(error.message),
    );
  });
});
