// The "did you mean" search for unknown uuids over real HTTP, in the shapes of the second security review
// (G2): its work is counted (edit distances), never timed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Layout } from '@canvas-ai/protocol';
import { suggestionWork, UUID_SUGGESTION_LIMITS } from '@canvas-ai/protocol/server';
import { ScriptedProvider } from '../src/providers/scripted.js';
import type { ModelMessage } from '../src/providers/model-provider.js';
import { laterHop, openSession, sharedFixtures, startTestServer, type TestServer } from './support/harness.js';
import { ListProvider, RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();

/** A deterministic 128-character uuid per number (SHA-512 in hex, like random ids). */
const longUuid = (n: number): string => createHash('sha512').update(String(n)).digest('hex');

/** The uuid with one character changed at `at`. */
const typo = (uuid: string, at: number): string =>
  `${uuid.slice(0, at)}${uuid[at] === 'z' ? 'y' : 'z'}${uuid.slice(at + 1)}`;

/** A page of `count` headings with 128-character uuids. */
function pageOf(count: number): Layout {
  const components = Array.from({ length: count }, (_, n) => ({
    uuid: longUuid(n),
    component: 'sdc.demo.heading',
    props: { text: `Heading ${n}` },
  }));
  return { regions: { content: { components } } };
}

/** The tool results the model was given in its latest decision of `request_id`'s turn. */
function toolResults(model: RecordingProvider, userMessage: string): string[] {
  const request = model.requests.findLast((candidate) => candidate.turn.userMessage === userMessage)!;
  return request.messages
    .filter((message): message is Extract<ModelMessage, { role: 'tool' }> => message.role === 'tool')
    .map((message) => message.content);
}

describe('G2: unknown uuids over HTTP cost bounded work', () => {
  let server: TestServer | undefined;
  after(() => server?.close());

  describe('the scripted remove-selected scenario on a 20,000-component page', () => {
    let model: RecordingProvider;
    before(async () => {
      model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
      server = await startTestServer({ provider: model });
    });

    it('G2: a selected uuid missing from hop 2 gets its close uuid suggested, with a bounded number of distances', async () => {
      const page = pageOf(20_000);
      const close = longUuid(12_000);
      const selected = typo(close, 90);
      const session = await openSession(server!);
      const id = `g2-${crypto.randomUUID()}`;
      const hop1 = await session.hop({
        protocol: 'canvas-ai/1',
        request_id: id,
        hop: 1,
        agent: 'page_builder',
        messages: [{ role: 'user', text: 'Remove the selected component' }],
        capabilities: { outputs: ['remove_components', 'move_components'] },
        context: { current_layout: page, selected_component: selected },
      });
      assert.equal(hop1.status, 200, JSON.stringify(hop1.body));
      const before = suggestionWork.distances;
      const hop2 = await session.hop(laterHop(id, 2, page, { agent: 'page_builder' }));
      const distances = suggestionWork.distances - before;
      assert.equal(hop2.status, 200, JSON.stringify(hop2.body));
      assert.deepEqual(hop2.body.outputs, [], 'nothing is removed');
      const [result] = toolResults(model, 'Remove the selected component');
      assert.ok(
        result?.includes(`no component with uuid \`${selected}\` in the layout; did you mean \`${close}\`?`),
        result,
      );
      // One search: at most `compared` candidates, two distances each; the whole page would be 20,000.
      assert.ok(distances >= 1 && distances <= UUID_SUGGESTION_LIMITS.compared * 2, `${distances} distances`);
    });
  });

  describe('a model naming 50 unknown uuids on a 1,000-component page', () => {
    const page = pageOf(1_000);
    const unknown = Array.from({ length: 50 }, (_, n) => typo(longUuid(n * 10), 30));
    let model: RecordingProvider;
    before(async () => {
      server?.close();
      model = new RecordingProvider(
        new ListProvider([
          {
            text: 'Removing them.',
            toolCalls: [
              { id: 'call_remove', name: 'remove_components', arguments: JSON.stringify({ uuids: unknown }) },
            ],
          },
          { text: 'Those were not on the page.', toolCalls: [] },
        ]),
      );
      server = await startTestServer({ provider: model });
    });

    it('G2: suggests for the first unknown uuids only, and names every one', async () => {
      const session = await openSession(server!);
      const id = `g2b-${crypto.randomUUID()}`;
      const hop1 = await session.hop({
        protocol: 'canvas-ai/1',
        request_id: id,
        hop: 1,
        agent: 'page_builder',
        messages: [{ role: 'user', text: 'Remove fifty things' }],
        capabilities: { outputs: ['remove_components', 'move_components'] },
        context: { current_layout: page },
      });
      assert.equal(hop1.status, 200, JSON.stringify(hop1.body));
      const before = suggestionWork.distances;
      const hop2 = await session.hop(laterHop(id, 2, page, { agent: 'page_builder' }));
      const distances = suggestionWork.distances - before;
      assert.equal(hop2.status, 200, JSON.stringify(hop2.body));
      const [result] = toolResults(model, 'Remove fifty things');
      const lines = (result ?? '').split('\n').filter((line) => line.includes('no component with uuid'));
      assert.equal(lines.length, 50, result);
      const suggested = lines.filter((line) => line.includes('did you mean'));
      assert.equal(suggested.length, UUID_SUGGESTION_LIMITS.perCall);
      for (const [n, line] of suggested.entries())
        assert.ok(line.includes(`did you mean \`${longUuid(n * 10)}\`?`), line);
      assert.ok(
        distances <= UUID_SUGGESTION_LIMITS.perCall * UUID_SUGGESTION_LIMITS.compared * 2,
        `${distances} distances for 50 unknown uuids on 1,000 components`,
      );
    });
  });
});
