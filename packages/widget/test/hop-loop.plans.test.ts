// Plans with the loop alone (spec §20.4), as a React or Vue host runs them: `decidePlan` declares the wait and
// decides, `showPlan`/`clearPlan` draw the placeholders, which built rows replace by order;
// a client that declares only questions never meets a plan.
import type { ToolOutput, Waiting } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect } from '@open-wc/testing';
import { rowsBuiltBy, runTurn, type ShownPlan } from '../src/loop.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

/** The plan scenario's turn over the reference server's mock, on the empty page. */
async function planTurn() {
  const fixtures = await loadFixtures();
  const script = await scenario('plan-revised-then-built');
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

describe('plans with the loop alone (spec §20.4)', () => {
  it('declares the wait, hands each plan to decidePlan, and shows the canvas each row built, by order', async () => {
    const { script, record, host, base } = await planTurn();
    const asked: Waiting[] = [];
    const shown: string[] = [];
    const result = await runTurn({
      ...base,
      askPerson: () => ({ choices: [0] }),
      decidePlan: (waiting) => {
        asked.push(waiting);
        return asked.length === 1 ? { decision: 'revise', feedback: 'Add a footer.' } : { decision: 'approve' };
      },
      showPlan: (plan: ShownPlan) => shown.push(`${plan.approved ? 'approved' : 'proposed'} ${plan.built}`),
      clearPlan: () => shown.push('clear'),
    });
    expect(result.status).to.equal('done');
    expect(record.posts()[0]!.body.capabilities?.waits).to.deep.equal(['question', 'plan']);
    expect(asked.map((waiting) => [waiting.kind, waiting.call_id])).to.deep.equal([
      ['plan', 'call_plan'],
      ['plan', 'call_plan_2'],
    ]);
    expect(record.posts().flatMap((post) => (post.body.answer ? [post.body.answer] : []))).to.deep.equal([
      { kind: 'plan', call_id: 'call_plan', decision: 'revise', feedback: 'Add a footer.' },
      { kind: 'plan', call_id: 'call_plan_2', decision: 'approve' },
    ]);
    expect(shown).to.deep.equal([
      'proposed 0',
      'clear',
      'proposed 0',
      'approved 0',
      'approved 1',
      'approved 2',
      'approved 3',
      'clear',
    ]);
    expect(result.status === 'done' && result.response.message).to.equal(script.hops.at(-1)!.message);
    expect(host.document.layout.regions.content!.components).to.have.length(3);
  });

  it('declares no plan without decidePlan: the agent builds without one, and no placeholder is drawn', async () => {
    const { record, base } = await planTurn();
    const shown: string[] = [];
    const result = await runTurn({
      ...base,
      askPerson: () => ({ choices: [0] }),
      showPlan: () => shown.push('show'),
      clearPlan: () => shown.push('clear'),
    });
    // The scripted model still calls propose_plan, which a 1.7 client is never offered: "unknown tool", and on.
    expect(record.posts()[0]!.body.capabilities?.waits).to.deep.equal(['question']);
    expect(record.posts().every((post) => post.body.answer === undefined)).to.equal(true);
    expect(shown).to.deep.equal([]);
    expect(result.status).to.not.equal('stopped');
  });

  it('ends the turn when the host answers a plan without a decision', async () => {
    const { base } = await planTurn();
    const shown: string[] = [];
    const result = await runTurn({
      ...base,
      decidePlan: () => ({}) as never,
      showPlan: () => shown.push('show'),
      clearPlan: () => shown.push('clear'),
    });
    expect(result.status).to.equal('error');
    expect(result.status === 'error' && result.error.kind).to.equal('host');
    expect(shown, 'the placeholders went with the turn').to.deep.equal(['show', 'clear']);
  });

  it('counts as built rows the components placed at the top level of a region, not in slots nor rejected', () => {
    const place = (callId: string, target: string, count: number): ToolOutput => ({
      type: 'place_components',
      call_id: callId,
      operations: [
        {
          target,
          placement: 'inside',
          components: Array.from({ length: count }, (_, index) => ({
            uuid: `${callId}-${index}`,
            component: 'sdc.demo.hero',
            props: {},
          })),
        },
      ],
    });
    const outputs = [place('a', 'content', 2), place('b', 'row-1/items', 3), place('c', 'content', 1)];
    expect(rowsBuiltBy(outputs, undefined)).to.equal(3);
    expect(rowsBuiltBy(outputs, [{ call_id: 'c', status: 'rejected', reason: 'no' }])).to.equal(2);
  });
});
