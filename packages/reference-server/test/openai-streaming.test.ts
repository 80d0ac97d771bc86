import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type FakeBehaviour, startFakeChatCompletions } from './support/fake-chat-completions.js';
import { failureOf, modelRequest, providerAt } from './support/model-request.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function fakeWith(queue: FakeBehaviour[]) {
  const fake = await startFakeChatCompletions(queue);
  cleanups.push(fake.close);
  return fake;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('the OpenAI-compatible provider, streamed', () => {
  it('asks for a stream with usage, and for one call at a time when it offers tools', async () => {
    const fake = await fakeWith([{ content: 'Hello.' }, { content: 'Hi.' }]);
    const provider = providerAt(fake.baseURL);
    await provider.decide(modelRequest());
    await provider.decide(modelRequest({ tools: [] }));
    const [withTools, without] = fake.requests.map((request) => request.body);
    assert.equal(withTools.stream, true);
    assert.deepEqual(withTools.stream_options, { include_usage: true });
    assert.equal(withTools.parallel_tool_calls, false);
    assert.equal(withTools.tools.length, 2);
    assert.equal(without.stream, true);
    assert.equal(without.tools, undefined);
    assert.equal(without.parallel_tool_calls, undefined, 'no tools, nothing to say about their calls');
  });

  it('forwards each piece of narration as it arrives, before the stream ends', async () => {
    const fake = await fakeWith([
      {
        chunks: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Adding ' }),
          chunk({ content: 'a hero.' }),
          chunk({}, 'stop'),
          '[DONE]',
        ],
        holdAfter: 3,
      },
    ]);
    const pieces: string[] = [];
    let sawTwo!: () => void;
    const twoPieces = new Promise<void>((resolve) => (sawTwo = resolve));
    let settled = false;
    const decision = providerAt(fake.baseURL)
      .decide(
        modelRequest({
          onText: (delta) => {
            pieces.push(delta);
            if (pieces.length === 2) sawTwo();
          },
        }),
      )
      .finally(() => (settled = true));
    await twoPieces;
    assert.deepEqual(pieces, ['Adding ', 'a hero.'], 'the pieces came while the endpoint still held the end');
    assert.equal(settled, false);
    fake.release();
    const reply = await decision;
    assert.equal(reply.text, 'Adding a hero.', 'the pieces joined are the text');
    assert.deepEqual(reply.toolCalls, []);
  });

  it('assembles tool calls from their deltas, with the narration beside them', async () => {
    const fake = await fakeWith([
      {
        content: "I'll add a hero.",
        tool_calls: [{ id: 'call_1', name: 'place_components', arguments: '{"operations":[]}' }],
      },
    ]);
    const reply = await providerAt(fake.baseURL).decide(modelRequest());
    assert.equal(reply.text, "I'll add a hero.");
    assert.deepEqual(reply.toolCalls, [{ id: 'call_1', name: 'place_components', arguments: '{"operations":[]}' }]);
  });

  it('reads usage from the last chunk: prompt, completion and cached prompt tokens', async () => {
    const fake = await fakeWith([
      {
        content: 'Done.',
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 30,
          total_tokens: 1230,
          prompt_tokens_details: { cached_tokens: 1024 },
        },
      },
      { content: 'Done.', usage: { prompt_tokens: 50, completion_tokens: 3, total_tokens: 53 } },
    ]);
    const provider = providerAt(fake.baseURL);
    assert.deepEqual((await provider.decide(modelRequest())).usage, {
      input_tokens: 1200,
      output_tokens: 30,
      cached_input_tokens: 1024,
    });
    assert.deepEqual((await provider.decide(modelRequest())).usage, {
      input_tokens: 50,
      output_tokens: 3,
      cached_input_tokens: 0,
    });
  });

  it('bounds the whole answer by the timeout: a stream that stops after its first piece fails', async () => {
    const fake = await fakeWith([{ chunks: [chunk({ content: 'Adding a' })], ending: 'stall' }]);
    const pieces: string[] = [];
    const failure = await failureOf(
      providerAt(fake.baseURL, { timeoutMs: 300 }).decide(modelRequest({ onText: (delta) => pieces.push(delta) })),
    );
    assert.equal(failure.code, 'provider_error');
    assert.match(failure.detail, /did not finish its answer within 300 ms/);
    assert.deepEqual(pieces, ['Adding a']);
  });

  it('fails a first token slower than the timeout, though the headers came at once', async () => {
    const fake = await fakeWith([
      { chunks: [chunk({ content: 'Late' }), chunk({}, 'stop')], firstChunkDelayMs: 2_000 },
    ]);
    const failure = await failureOf(providerAt(fake.baseURL, { timeoutMs: 300 }).decide(modelRequest()));
    assert.equal(failure.code, 'provider_error');
    assert.match(failure.detail, /did not answer within 300 ms/);
  });

  it('keeps maxDecisionMs honest: every try and every wait fits in it', () => {
    const provider = providerAt('http://127.0.0.1:9/v1', { timeoutMs: 1_000, maxRetries: 2, maxRetryWaitMs: 500 });
    assert.equal(provider.maxDecisionMs, 3 * 1_000 + 2 * 500);
  });
});
