import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { applyOutputs, HopResponse } from '@canvas-ai/protocol';
import { builtinTools } from '@canvas-ai/protocol/server';
import { ConfigError } from '../src/config-error.js';
import { FIXTURES_DIR } from '../src/config.js';
import { openAiProviderFromEnv } from '../src/providers/from-env.js';
import { OpenAiCompatibleProvider } from '../src/providers/openai-compatible.js';
import { toolParameters } from '../src/providers/tool-schemas.js';
import { startFakeChatCompletions, type FakeBehaviour } from './support/fake-chat-completions.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, startTestServer, type JsonBody } from './support/harness.js';

const HERO_ARGS = JSON.stringify({
  operations: [
    {
      target: 'content',
      placement: 'inside',
      components: '- sdc.demo.hero:\n    props:\n      heading: Crumb & Co.\n',
    },
  ],
});

/** The reference server with the OpenAI-compatible provider pointed at a fake endpoint on 127.0.0.1. */
async function serverWithFakeModel(queue: FakeBehaviour[], timeoutMs = 10_000) {
  const fake = await startFakeChatCompletions(queue);
  const provider = new OpenAiCompatibleProvider({
    model: 'fake-model',
    apiKey: 'sk-test',
    baseURL: fake.baseURL,
    timeoutMs,
    maxRetries: 0,
  });
  const server = await startTestServer({ provider });
  const session = await openSession(server);
  return {
    fake,
    server,
    session,
    close: async () => {
      await server.close();
      await fake.close();
    },
  };
}

describe('the OpenAI-compatible provider against a local Chat Completions endpoint', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('plays a full turn: a tool-call reply is parked, executed next hop, and the text reply ends the turn once its output is reported', async () => {
    const { fake, session, close } = await serverWithFakeModel([
      {
        content: "I'll add a hero for Crumb & Co.",
        tool_calls: [{ id: 'call_abc', name: 'place_components', arguments: HERO_ARGS }],
      },
      { content: 'The page now opens with a hero.' },
    ]);
    cleanups.push(close);
    const hop1 = HopResponse.parse((await session.hop(firstHop('oa-1', 'Add a hero', { agent: 'page_builder' }))).body);
    assert.equal(hop1.should_continue, true);
    assert.deepEqual(hop1.outputs, []);
    assert.equal(hop1.progress, "I'll add a hero for Crumb & Co.");

    const hop2 = HopResponse.parse(
      (await session.hop(laterHop('oa-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).body,
    );
    // The model answered, but this hop carries the hero: the answer waits for its report (spec §2, step 7).
    assert.equal(hop2.should_continue, true);
    assert.equal(hop2.progress, "I'll add a hero for Crumb & Co.");
    const output = hop2.outputs[0]!;
    assert.equal(output.type, 'place_components');
    assert.equal(output.call_id, 'call_abc');
    const uuid = output.type === 'place_components' ? output.operations[0]!.components[0]!.uuid : '';

    const placed = applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, hop2.outputs).layout;
    const hop3 = HopResponse.parse(
      (
        await session.hop(
          laterHop('oa-1', 3, placed, {
            agent: 'page_builder',
            apply_results: [{ call_id: 'call_abc', status: 'applied' }],
          }),
        )
      ).body,
    );
    assert.equal(hop3.should_continue, false);
    assert.equal(hop3.should_continue === false && hop3.message, 'The page now opens with a hero.');
    assert.equal(hop3.progress, "I'll add a hero for Crumb & Co.");
    assert.deepEqual(hop3.outputs, []);

    assert.equal(fake.requests.length, 2, 'one model call per decision, none for the held answer');
    const [first, second] = fake.requests.map((request) => request.body);
    assert.equal(first.model, 'fake-model');
    assert.equal(fake.requests[0]!.headers.authorization, 'Bearer sk-test');
    assert.equal(first.messages[0].role, 'system');
    assert.match(first.messages[0].content, /sdc\.demo\.hero \(Hero\)/);
    assert.deepEqual(first.messages.slice(1, 2), [{ role: 'user', content: 'Add a hero' }]);
    assert.equal(first.messages[2].role, 'user', 'the page, as an editor notice after the person’s message');
    assert.match(first.messages[2].content, /^\[Editor notice\] # The page now\n\nLayout \(uuid component_id\):/);
    assert.equal(first.messages.length, 3);
    assert.deepEqual(second.messages.slice(0, 3), first.messages, 'the second call starts with the first');
    assert.deepEqual(
      first.tools.map((tool: JsonBody) => tool.function.name),
      ['get_component_details', 'place_components', 'edit_components', 'set_page_value'],
    );
    const place = first.tools.find((tool: JsonBody) => tool.function.name === 'place_components');
    assert.equal(place.type, 'function');
    assert.equal(place.function.parameters.type, 'object');
    assert.ok(place.function.parameters.properties.operations, 'parameters come from the zod input schema');

    const assistant = second.messages[3];
    assert.equal(assistant.role, 'assistant');
    assert.deepEqual(assistant.tool_calls, [
      { id: 'call_abc', type: 'function', function: { name: 'place_components', arguments: HERO_ARGS } },
    ]);
    const tool = second.messages[4];
    assert.equal(tool.role, 'tool');
    assert.equal(tool.tool_call_id, 'call_abc');
    assert.ok(tool.content.includes(uuid), 'the tool result tells the model the uuid the server assigned');
  });

  it('answers a text-only reply in one hop, with no tools offered to an agent without tools', async () => {
    const { fake, session, close } = await serverWithFakeModel([
      { content: 'Pick the Page builder with the wrench button.' },
    ]);
    cleanups.push(close);
    const reply = await session.hop(firstHop('oa-2', 'How do I change my page?'));
    assert.equal(reply.status, 200);
    assert.equal(reply.body.should_continue, false);
    assert.equal(reply.body.message, 'Pick the Page builder with the wrench button.');
    assert.equal(reply.body.progress, '');
    assert.equal(fake.requests[0]!.body.tools, undefined);
  });

  it('sends hop 1’s attachments as image_url data URLs on the user message, and keeps them for later hops', async () => {
    const { fake, server, session, close } = await serverWithFakeModel([
      {
        content: 'A hero with your photo.',
        tool_calls: [{ id: 'c1', name: 'place_components', arguments: HERO_ARGS }],
      },
      { content: 'Done.' },
    ]);
    cleanups.push(close);
    const png = await readFile(`${FIXTURES_DIR}attachments/cookie.png`);
    const form = new FormData();
    form.append('request', JSON.stringify(firstHop('oa-3', 'Put this photo in a hero', { agent: 'page_builder' })));
    form.append('attachments', new Blob([png], { type: 'image/png' }), 'cookie.png');
    const hop1 = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(), body: form });
    assert.equal(hop1.status, 200);
    assert.equal((await session.hop(laterHop('oa-3', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 200);
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    for (const request of fake.requests) {
      const user = request.body.messages[1];
      assert.deepEqual(user.content, [
        { type: 'text', text: 'Put this photo in a hero' },
        { type: 'image_url', image_url: { url: dataUrl } },
      ]);
    }
  });

  it('turns an HTTP error of the endpoint into 502 provider_error, and the turn is gone', async () => {
    const { server, session, close } = await serverWithFakeModel([
      { content: 'Adding a hero.', tool_calls: [{ id: 'c1', name: 'place_components', arguments: HERO_ARGS }] },
      { status: 500, message: 'the GPU caught fire' },
    ]);
    cleanups.push(close);
    await session.hop(firstHop('oa-4', 'Add a hero', { agent: 'page_builder' }));
    const failed = await session.hop(laterHop('oa-4', 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'provider_error');
    assert.match(failed.body.message, UNAVAILABLE);
    assert.match(failureDetail(server), /answered 500: .*the GPU caught fire/, 'the upstream answer is in the log');
    assert.equal(failed.body.progress, 'Adding a hero.');
    assert.equal((await session.hop(laterHop('oa-4', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 410);
  });

  it('tells the log to check the API key when the endpoint answers 401, and the user only that the model is unavailable', async () => {
    const { server, session, close } = await serverWithFakeModel([
      { status: 401, message: 'Incorrect API key provided' },
    ]);
    cleanups.push(close);
    const failed = await session.hop(firstHop('oa-5', 'Hi'));
    assert.equal(failed.status, 502);
    assert.match(failed.body.message, UNAVAILABLE);
    assert.match(failureDetail(server), /CANVAS_AI_OPENAI_API_KEY/);
    assert.doesNotMatch(JSON.stringify(server.logs), /sk-test/, 'the key itself is never logged');
  });

  it('turns a model that does not answer in time into 502 provider_error', async () => {
    const { server, session, close } = await serverWithFakeModel([{ hang: true }], 300);
    cleanups.push(close);
    const failed = await session.hop(firstHop('oa-6', 'Hi'));
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'provider_error');
    assert.match(failed.body.message, UNAVAILABLE);
    assert.match(failureDetail(server), /did not answer within 300 ms/);
  });

  it('says how to reach an endpoint that is not running, in the log', async () => {
    const fake = await startFakeChatCompletions([]);
    const baseURL = fake.baseURL;
    await fake.close();
    const provider = new OpenAiCompatibleProvider({ model: 'm', apiKey: 'k', baseURL, maxRetries: 0 });
    const server = await startTestServer({ provider });
    cleanups.push(() => server.close());
    const failed = await (await openSession(server)).hop(firstHop('oa-7', 'Hi'));
    assert.equal(failed.status, 502);
    assert.match(failed.body.message, UNAVAILABLE);
    assert.match(
      failureDetail(server),
      /Could not reach the model at http:\/\/127\.0\.0\.1:\d+\/v1; check CANVAS_AI_OPENAI_BASE_URL/,
    );
  });

  it('never shows the endpoint, its credentials or its text to the user; the log has the endpoint with them masked', async () => {
    const fake = await startFakeChatCompletions([]);
    const port = new URL(fake.baseURL).port;
    await fake.close();
    const baseURL = `http://svc:s3cretPass@127.0.0.1:${port}/v1?api_key=k3yk3y&region=eu`;
    const provider = new OpenAiCompatibleProvider({ model: 'm', apiKey: 'k', baseURL, maxRetries: 0 });
    const server = await startTestServer({ provider });
    cleanups.push(() => server.close());
    const failed = await (await openSession(server)).hop(firstHop('oa-8', 'Hi'));
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'provider_error');
    assert.doesNotMatch(JSON.stringify(failed.body), /s3cretPass|k3yk3y|127\.0\.0\.1|svc/);
    const logged = JSON.stringify(server.logs);
    assert.doesNotMatch(logged, /s3cretPass|k3yk3y/, 'the log masks them');
    assert.match(failureDetail(server), /http:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/v1\?api_key=\*\*\*&region=eu/);

    const markdown = await serverWithFakeModel([
      {
        status: 400,
        message: '[Click here to retry](javascript:alert(document.domain)) ![x](http://127.0.0.1:9/p.gif)',
      },
    ]);
    cleanups.push(markdown.close);
    const relayed = await markdown.session.hop(firstHop('oa-9', 'Hi'));
    assert.match(relayed.body.message, UNAVAILABLE);
    assert.doesNotMatch(relayed.body.message, /javascript|p\.gif|\]\(/, "the upstream's text is not relayed");
  });
});

/** What the user is told of every failed model call. */
const UNAVAILABLE = /^The model is unavailable right now, so this turn stopped\./;

/** The `detail` of the last failed hop the server logged: what an operator reads. */
function failureDetail(server: { logs: Array<Record<string, unknown>> }): string {
  const failed = server.logs.filter((entry) => entry.event === 'hop_failed').at(-1);
  return String(failed?.detail ?? '');
}

describe('provider configuration', () => {
  it('describes every built-in tool to the model as a JSON Schema object', () => {
    for (const tool of Object.values(builtinTools)) {
      const schema = toolParameters(tool);
      assert.equal(schema.type, 'object', tool.name);
      assert.equal(schema.$schema, undefined);
      const refs = JSON.stringify(schema).match(/"\$ref":"#\/\$defs\/(\w+)"/g) ?? [];
      for (const ref of refs) {
        const name = ref.split('/').at(-1)!.replace('"', '');
        assert.ok((schema.$defs as Record<string, unknown>)?.[name], `${tool.name}: ${name} is defined`);
      }
    }
    assert.ok(
      JSON.stringify(toolParameters(builtinTools.set_page_value)).includes('#/$defs/JsonValue'),
      'recursive types stay referenced',
    );
  });

  it('reads the real provider from the environment, naming any missing variable', () => {
    assert.throws(
      () => openAiProviderFromEnv({}),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /CANVAS_AI_OPENAI_MODEL: not set/);
        assert.match(error.message, /CANVAS_AI_OPENAI_API_KEY: not set/);
        return true;
      },
    );
    assert.throws(
      () =>
        openAiProviderFromEnv({
          CANVAS_AI_OPENAI_MODEL: 'm',
          CANVAS_AI_OPENAI_API_KEY: 'k',
          CANVAS_AI_OPENAI_TIMEOUT_MS: 'soon',
        }),
      /TIMEOUT_MS/,
    );
    const local = openAiProviderFromEnv({
      CANVAS_AI_OPENAI_MODEL: 'llama3.1',
      CANVAS_AI_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    assert.equal(local.name, 'openai', 'a local server needs no key');
  });
});
