// Questions with the loop alone (spec §20), as a React or Vue host runs them: `askPerson` declares the wait and
// answers it; without it nothing waits; a turn resumed after a reload asks again before its next hop.
import type { WaitingOf } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect } from '@open-wc/testing';
import { type PersonAnswer, resumeTurn, runTurn, startTurn, type ResumableTurn } from '../src/loop.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

/** The question scenario's turn over the reference server's mock, on the empty page. */
async function questionTurn() {
  const fixtures = await loadFixtures();
  const script = await scenario('question-answered');
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const base = {
    endpoint: '/api/hop',
    agent: 'page_builder',
    messages: [{ role: 'user' as const, text: script.user_message }],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
  };
  return { script, record, host, base };
}

describe('questions, with the loop alone', () => {
  it('declares the wait, hands the question to askPerson and sends the answer with the next hop', async () => {
    const { script, record, host, base } = await questionTurn();
    const asked: Array<{ waiting: WaitingOf<'question'>; hop: number }> = [];
    const result = await runTurn({
      ...base,
      askPerson: (waiting, info) => {
        asked.push({ waiting, hop: info.hop });
        return { choices: [1] };
      },
    });
    expect(result.status).to.equal('done');
    expect(
      asked.map(({ waiting, hop }) => [waiting.call_id, waiting.kind === 'question' && waiting.question.choices, hop]),
    ).to.deep.equal([['call_tone', ['Playful', 'Elegant', 'Bold'], 2]]);
    const posts = record.posts();
    expect(posts[0]!.body.capabilities).to.deep.equal({ outputs: [], waits: ['question'] });
    expect(
      posts.map((post) => (post.body.answer?.kind === 'question' ? post.body.answer.choices : post.body.answer)),
    ).to.deep.equal([undefined, undefined, [1], undefined, undefined]);
    expect(result.status === 'done' && result.response.message).to.equal(script.hops.at(-1)!.message);
    expect(host.document.layout.regions.content!.components).to.have.length(1);
  });

  it('declares no wait without askPerson: the agent is not offered the question and nothing waits', async () => {
    const { record, base } = await questionTurn();
    const turn = startTurn(base);
    const posts = () => record.posts();
    // The script goes on without the question (the server answers its call as an unknown tool); stopped after hop 2.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (posts().length >= 2 && record.requests.length >= 2) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    turn.stop();
    await turn.result;
    expect(posts()[0]!.body.capabilities).to.equal(undefined);
    expect(posts().every((post) => post.body.answer === undefined)).to.equal(true);
  });

  it('asks again before the next hop when a turn resumed after a reload waits', async () => {
    const { record, host, base } = await questionTurn();
    let kept: ResumableTurn | undefined;
    const abandoned = new AbortController();
    const first = startTurn({
      ...base,
      signal: abandoned.signal,
      // The page reloads while the question is shown: its answer never comes.
      askPerson: () => new Promise<PersonAnswer>(() => undefined),
      onHop: (report) => {
        kept = { requestId: report.requestId, agent: 'page_builder', hop: report.hop, changes: report.changes };
      },
    });
    while (kept?.hop !== 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const asked: number[] = [];
    const outcome = await resumeTurn(kept, {
      ...base,
      askPerson: (_waiting, info) => {
        asked.push(info.hop);
        return { choices: [0], text: 'but calm' };
      },
    });
    expect(outcome.kind).to.equal('resumed');
    const result = outcome.kind === 'resumed' ? await outcome.turn.result : undefined;
    expect(result?.status).to.equal('done');
    expect(asked).to.deep.equal([2]);
    const answered = record.posts().find((post) => post.body.answer !== undefined)!;
    expect([answered.body.hop, answered.body.answer]).to.deep.equal([
      3,
      { kind: 'question', call_id: 'call_tone', dismissed: false, choices: [0], text: 'but calm' },
    ]);
    expect(host.document.layout.regions.content!.components).to.have.length(1);
    // The first page's loop never sent anything after its question.
    expect(first.stopped).to.equal(false);
    abandoned.abort();
  });
});
