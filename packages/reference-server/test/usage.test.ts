// Usage (spec §6.2, revision 1.4): the tokens a provider reports, per hop and summed per turn, in every response of
// the turn, its replay, its status and the hop's log line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyOutputsWithResults, HopResponse } from '@canvas-ai/protocol';
import type { ModelReply, ModelUsage } from '../src/providers/model-provider.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type JsonBody,
} from './support/harness.js';
import { ListProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const AGENT = { agent: 'page_builder' };

/** A decision that places a hero: the next hop executes it and carries its output. */
function placesHero(usage?: ModelUsage): ModelReply {
  const components = '- sdc.demo.hero:\n    props:\n      heading: Hi\n';
  return {
    text: 'I will add a hero.',
    toolCalls: [
      {
        id: 'c1',
        name: 'place_components',
        arguments: JSON.stringify({ operations: [{ target: 'content', placement: 'inside', components }] }),
      },
    ],
    usage,
  };
}

function answers(text: string, usage?: ModelUsage): ModelReply {
  return { text, toolCalls: [], usage };
}

const counts = (input: number, output: number, cached: number): ModelUsage => ({
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: cached,
});

/** The page after hop 2's hero was applied by the shared reducer, as a host would: what hop 3 sends. */
function layoutWith(response: JsonBody): unknown {
  return applyOutputsWithResults({ layout: EMPTY_LAYOUT, page: {} }, response.outputs).document.layout;
}

describe('usage over HTTP (spec §6.2)', () => {
  it('reports each hop and the turn so far, 0 for the hop that only delivers a held answer, and the same on a replay', async () => {
    const server = await startTestServer({
      provider: new ListProvider([placesHero(counts(1000, 50, 0)), answers('Done: a hero.', counts(1200, 20, 1000))]),
    });
    try {
      const session = await openSession(server);
      const id = 'usage-1';
      const hop1 = await session.hop(firstHop(id, 'Add a hero', AGENT));
      assert.equal(hop1.status, 200);
      assert.deepEqual(hop1.body.usage, { hop: counts(1000, 50, 0), turn: counts(1000, 50, 0) });

      const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, AGENT));
      assert.equal(hop2.body.should_continue, true, 'the answer waits for the report on the hero');
      assert.deepEqual(hop2.body.usage, { hop: counts(1200, 20, 1000), turn: counts(2200, 70, 1000) });
      const replay2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, AGENT));
      assert.deepEqual(replay2.body, hop2.body, 'a repeated hop is the stored response, usage included');

      const hop3 = await session.hop(laterHop(id, 3, layoutWith(hop2.body), AGENT));
      assert.equal(hop3.body.finish_reason, 'answer');
      assert.deepEqual(hop3.body.usage, { hop: counts(0, 0, 0), turn: counts(2200, 70, 1000) });
      assert.ok(HopResponse.safeParse(hop3.body).success);
      const replay3 = await session.hop(laterHop(id, 3, layoutWith(hop2.body), AGENT));
      assert.deepEqual(replay3.body, hop3.body);
      const status = await fetch(`${server.url}/api/hop/${id}`, { headers: { cookie: session.cookie } });
      assert.deepEqual(((await status.json()) as JsonBody).response.usage, hop3.body.usage);

      const lines = server.logs.filter((entry) => entry.event === 'hop' && entry.request_id === id);
      assert.deepEqual(
        lines.map((line) => [line.input_tokens, line.output_tokens, line.cached_input_tokens]),
        [
          [1000, 50, 0],
          [1200, 20, 1000],
          [0, 0, 0],
        ],
      );
      assert.deepEqual(
        lines.map((line) => [line.turn_input_tokens, line.turn_output_tokens, line.turn_cached_input_tokens]),
        [
          [1000, 50, 0],
          [2200, 70, 1000],
          [2200, 70, 1000],
        ],
      );
    } finally {
      await server.close();
    }
  });

  it('reports hop usage 0 and the turn so far on the hop after the last allowed decision (max_hops)', async () => {
    const agents = structuredClone(fixtures.agents);
    agents.agents.page_builder!.max_hops = 1;
    const server = await startTestServer({ agents, provider: new ListProvider([placesHero(counts(900, 40, 300))]) });
    try {
      const session = await openSession(server);
      await session.hop(firstHop('usage-max', 'Add a hero', AGENT));
      const hop2 = await session.hop(laterHop('usage-max', 2, EMPTY_LAYOUT, AGENT));
      assert.equal(hop2.body.outputs.length, 1, 'the parked call ran, no model was called');
      assert.deepEqual(hop2.body.usage, { hop: counts(0, 0, 0), turn: counts(900, 40, 300) });
      const hop3 = await session.hop(laterHop('usage-max', 3, layoutWith(hop2.body), AGENT));
      assert.equal(hop3.body.finish_reason, 'max_hops');
      assert.deepEqual(hop3.body.usage, { hop: counts(0, 0, 0), turn: counts(900, 40, 300) });
    } finally {
      await server.close();
    }
  });

  it('sends no usage while the model reports none, and starts counting at the first call that does', async () => {
    const server = await startTestServer({
      provider: new ListProvider([placesHero(), answers('Done.', counts(700, 30, 0))]),
    });
    try {
      const session = await openSession(server);
      const hop1 = await session.hop(firstHop('usage-late', 'Add a hero', AGENT));
      assert.equal('usage' in hop1.body, false);
      const line1 = server.logs.find((entry) => entry.event === 'hop' && entry.request_id === 'usage-late');
      assert.equal(line1?.input_tokens, undefined, 'no token fields in the log either');
      const hop2 = await session.hop(laterHop('usage-late', 2, EMPTY_LAYOUT, AGENT));
      assert.deepEqual(hop2.body.usage, { hop: counts(700, 30, 0), turn: counts(700, 30, 0) });
    } finally {
      await server.close();
    }
  });

  it('keeps counts a provider reports oddly within the wire rules: whole, not negative, cached within input', async () => {
    const server = await startTestServer({
      provider: new ListProvider([answers('Hi.', counts(10.7, -3, 25))]),
    });
    try {
      const session = await openSession(server);
      const hop1 = await session.hop(firstHop('usage-odd', 'Hello', AGENT));
      assert.deepEqual(hop1.body.usage.hop, counts(10, 0, 10));
      assert.ok(HopResponse.safeParse(hop1.body).success);
    } finally {
      await server.close();
    }
  });
});
