import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type FakeBehaviour, startFakeChatCompletions } from './support/fake-chat-completions.js';
import { failureOf, modelRequest, providerAt } from './support/model-request.js';
import { loadProviderStreams } from './support/provider-stream-fixture.js';

const fixtures = await loadProviderStreams();
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("real servers' stream shapes (fixtures/provider-streams), each with its defined outcome", () => {
  it('has a fixture for each server the README names', () => {
    const names = fixtures.map(({ file }) => file).join(' ');
    for (const server of ['ollama', 'vllm', 'gemini', 'mistral', 'openai']) assert.match(names, new RegExp(server));
  });

  for (const { file, fixture } of fixtures) {
    it(`${file}: ${fixture.shape}`, async () => {
      const queue: FakeBehaviour[] = [];
      if (fixture.refused_first) queue.push({ status: fixture.refused_first.status, json: fixture.refused_first.body });
      queue.push(fixture.chunks ? { chunks: fixture.chunks } : { json: fixture.completion });
      const fake = await startFakeChatCompletions(queue);
      cleanups.push(fake.close);
      const pieces: string[] = [];
      const decision = providerAt(fake.baseURL).decide(modelRequest({ onText: (delta) => pieces.push(delta) }));
      const { expect } = fixture;
      if ('error' in expect) {
        const failure = await failureOf(decision);
        assert.equal(failure.code, 'provider_error');
        assert.ok(failure.detail.includes(expect.error), `${failure.detail} names "${expect.error}"`);
        return;
      }
      const reply = await decision;
      assert.equal(reply.text, expect.text);
      assert.equal(pieces.join(''), expect.text, 'what was narrated is the text, nothing else (no reasoning)');
      assert.deepEqual(reply.toolCalls, expect.tool_calls);
      assert.deepEqual(reply.usage, expect.usage ?? undefined);
      const sent = fake.requests.at(-1)!.body;
      for (const field of expect.resent_without ?? []) {
        assert.equal(fake.requests.length, 2, 'one refused request, one sent again');
        assert.ok(field in fake.requests[0]!.body, `the first request had ${field}`);
        assert.equal(sent[field], undefined, `the second left ${field} out`);
      }
      if (!expect.resent_without) assert.equal(fake.requests.length, 1);
    });
  }
});
