import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import type { OpenAiCompatibleOptions } from '../src/providers/openai-compatible.js';
import { type FakeBehaviour, startFakeChatCompletions } from './support/fake-chat-completions.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, startTestServer } from './support/harness.js';
import { modelRequest, providerAt } from './support/model-request.js';

// The fault table of the server README ("Model endpoint faults"), row by row, over HTTP: what the endpoint does on
// the second decision of a turn, and what the hop answers.

const BUILDER = { agent: 'page_builder' };
const HERO_ARGS = JSON.stringify({
  operations: [
    { target: 'content', placement: 'inside', components: '- sdc.demo.hero:\n    props:\n      heading: Hi\n' },
  ],
});
const PLACE_HERO = {
  content: 'Adding a hero.',
  tool_calls: [{ id: 'call_hero', name: 'place_components', arguments: HERO_ARGS }],
};
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A server whose model is the fake endpoint playing `queue`; hop 1 of every turn here places a hero. */
async function turnWith(queue: FakeBehaviour[], options: Partial<OpenAiCompatibleOptions> = {}) {
  const fake = await startFakeChatCompletions(queue);
  const server = await startTestServer({ provider: providerAt(fake.baseURL, options) });
  cleanups.push(async () => {
    await server.close();
    await fake.close();
  });
  const session = await openSession(server);
  const id = `fault-${crypto.randomUUID()}`;
  return {
    fake,
    server,
    first: () => session.hop(firstHop(id, 'Add a hero', BUILDER)),
    second: () => session.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER)),
    detail: () => String(server.logs.filter((entry) => entry.event === 'hop_failed').at(-1)?.detail ?? ''),
  };
}

/** Asserts a 502 provider_error that kept hop 1's narration, and that the turn is gone. */
async function assertFailedTurn(turn: Awaited<ReturnType<typeof turnWith>>, failed: { status: number; body: unknown }) {
  assert.equal(failed.status, 502);
  const body = HopErrorBody.parse(failed.body);
  assert.equal(body.error.code, 'provider_error');
  assert.equal(body.progress, 'Adding a hero.', 'the narration so far is kept, nothing of the failed reply');
  assert.equal((await turn.second()).status, 410, 'the turn is gone: nothing was parked');
}

describe('model endpoint faults, each with its defined outcome (server README, fault table)', () => {
  it('429 with Retry-After: waits as asked and tries again within the hop', async () => {
    const turn = await turnWith(
      [
        PLACE_HERO,
        { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } },
        { content: 'Done.' },
      ],
      { maxRetries: 1 },
    );
    assert.equal((await turn.first()).status, 200);
    const hop2 = await turn.second();
    assert.equal(hop2.status, 200);
    assert.equal(HopResponse.parse(hop2.body).outputs.length, 1);
    assert.equal(turn.fake.requests.length, 3, 'the refused call was sent again');
  });

  it('500, then 503: retried with a growing wait, and the third try answers', async () => {
    const turn = await turnWith(
      [PLACE_HERO, { status: 500, message: 'boom' }, { status: 503, message: 'overloaded' }, { content: 'Done.' }],
      { maxRetries: 2 },
    );
    await turn.first();
    assert.equal((await turn.second()).status, 200);
    assert.equal(turn.fake.requests.length, 4);
  });

  it('503 past the retries: 502 provider_error with the narration kept and the turn gone', async () => {
    const turn = await turnWith(
      [PLACE_HERO, { status: 503, message: 'overloaded' }, { status: 503, message: 'still overloaded' }],
      { maxRetries: 1 },
    );
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.match(turn.detail(), /answered 503: still overloaded\. \(after 2 tries\)/);
  });

  it('a Retry-After longer than a decision may wait: no retry, 502 saying so', async () => {
    const turn = await turnWith(
      [PLACE_HERO, { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '120' } }],
      { maxRetries: 3 },
    );
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.match(turn.detail(), /asked to wait 120 s, more than this decision may wait \(8000 ms/);
    assert.equal(turn.fake.requests.length, 2, 'not sent again');
  });

  it('a client error (400) is not retried', async () => {
    const turn = await turnWith([PLACE_HERO, { status: 400, message: 'messages: bad order' }], { maxRetries: 2 });
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.equal(turn.fake.requests.length, 2);
  });

  it('a stream cut in the middle: 502, and the partial reply is neither narrated in the error nor parked', async () => {
    const turn = await turnWith(
      [
        PLACE_HERO,
        {
          chunks: [
            chunk({ content: 'Now a footer' }),
            chunk({
              tool_calls: [{ index: 0, id: 'call_f', function: { name: 'place_components', arguments: '{"op' } }],
            }),
          ],
          ending: 'cut',
        },
      ],
      { maxRetries: 2 },
    );
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.match(turn.detail(), /stream (broke off|ended before the model finished)/);
    assert.equal(turn.fake.requests.length, 2, 'a stream that began is not sent again');
  });

  it('a stream that ends cleanly without a finish reason or [DONE] is a cut stream too', async () => {
    const turn = await turnWith([PLACE_HERO, { chunks: [chunk({ content: 'Now a footer' })] }]);
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.match(turn.detail(), /stream ended before the model finished/);
  });

  it('a first token slower than the timeout: 502', async () => {
    const turn = await turnWith(
      [PLACE_HERO, { chunks: [chunk({ content: 'Late' }), chunk({}, 'stop'), '[DONE]'], firstChunkDelayMs: 5_000 }],
      { timeoutMs: 400 },
    );
    await turn.first();
    await assertFailedTurn(turn, await turn.second());
    assert.match(turn.detail(), /did not answer within 400 ms/);
  });

  for (const [what, call, told] of [
    ['malformed tool arguments', { name: 'place_components', arguments: '{"operations": [' }, /not valid JSON/],
    ['an unknown tool name', { name: 'paint_the_page', arguments: '{}' }, /Unknown tool `paint_the_page`/],
  ] as const) {
    it(`${what}: no output; the model is told in the tool result and decides again`, async () => {
      const turn = await turnWith([{ content: 'Trying.', tool_calls: [{ id: 'call_bad', ...call }] }, PLACE_HERO]);
      const hop1 = HopResponse.parse((await turn.first()).body);
      assert.equal(hop1.should_continue, true, 'the call is parked as the model wrote it');
      const hop2 = HopResponse.parse((await turn.second()).body);
      assert.deepEqual(hop2.outputs, [], 'nothing reaches the page');
      assert.equal(hop2.should_continue, true, 'the model decided again: the hero is parked');
      const toolResult = turn.fake.requests[1]!.body.messages.find(
        (message: { role: string; tool_call_id?: string }) =>
          message.role === 'tool' && message.tool_call_id === 'call_bad',
      );
      assert.match(toolResult.content, told);
    });
  }

  it('an empty reply: the turn ends with an empty answer', async () => {
    const turn = await turnWith([{ chunks: [chunk({ role: 'assistant', content: '' }), chunk({}, 'stop'), '[DONE]'] }]);
    const hop1 = HopResponse.parse((await turn.first()).body);
    assert.equal(hop1.should_continue, false);
    assert.equal(hop1.should_continue === false && hop1.message, '');
  });

  it('text and calls together: the text is narration, the calls are parked', async () => {
    const turn = await turnWith([PLACE_HERO, { content: 'Done.' }]);
    const hop1 = HopResponse.parse((await turn.first()).body);
    assert.equal(hop1.progress, 'Adding a hero.');
    assert.equal(hop1.should_continue, true);
    const hop2 = HopResponse.parse((await turn.second()).body);
    assert.equal(hop2.outputs[0]?.call_id, 'call_hero');
  });

  it('a request field the endpoint refuses is left out from then on, for every later call', async () => {
    const refusal = {
      status: 422,
      json: {
        detail: [
          { type: 'extra_forbidden', loc: ['body', 'parallel_tool_calls'], msg: 'Extra inputs are not permitted' },
        ],
      },
    };
    const fake = await startFakeChatCompletions([refusal, { content: 'One.' }, { content: 'Two.' }]);
    cleanups.push(fake.close);
    const provider = providerAt(fake.baseURL);
    assert.equal((await provider.decide(modelRequest())).text, 'One.');
    assert.equal((await provider.decide(modelRequest())).text, 'Two.');
    assert.deepEqual(
      fake.requests.map((request) => request.body.parallel_tool_calls),
      [false, undefined, undefined],
    );
  });
});
