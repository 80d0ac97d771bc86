// Approval of destructive changes (spec/hop-protocol.md §20.5): which outputs an agent's rule marks, how a proposal
// names its components (no uuid), the answers it refuses, and the rule's place in the agents config.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { AgentDefinition, type ToolOutput, WaitAnswer, type WaitingOf } from '../src/index.js';
import { approvalProblems, needsApproval, proposedChange } from '../src/server.js';
import { catalog, documentOf } from './support/tools-fixtures.js';

const layout = documentOf().layout;
const top = layout.regions.content!.components[0]!;
const removal: ToolOutput = { type: 'remove_components', call_id: 'c1', uuids: [top.uuid], replaces: {} };
const edit = (uuids: string[]): ToolOutput => ({
  type: 'edit_components',
  call_id: 'c2',
  component_updates: Object.fromEntries(uuids.map((uuid) => [uuid, { heading: 'x' }])),
});

describe('approval rules', () => {
  it('marks the listed types, and an output touching more components than over_components', () => {
    assert.equal(needsApproval(removal, { outputs: ['remove_components'] }, layout), true);
    assert.equal(needsApproval(removal, { outputs: [] }, layout), false);
    assert.equal(needsApproval(removal, undefined, layout), false);
    assert.equal(needsApproval(edit([top.uuid]), { outputs: [], over_components: 1 }, layout), false);
    const inside = top.slots ? Object.values(top.slots).flat().length : 0;
    assert.ok(inside > 0, 'the fixture row holds components');
    // A removal counts what goes with it: the row and what is inside it.
    assert.equal(needsApproval(removal, { outputs: [], over_components: 1 }, layout), true);
  });

  it('names each component of a proposal by its catalog name and its own text, never by uuid', () => {
    const change = proposedChange(removal, layout, catalog);
    assert.equal(change.call_id, 'c1');
    assert.equal(change.components.length, 1);
    const [component] = change.components;
    assert.equal(component!.component, top.component);
    assert.equal(component!.name, catalog.components.find((entry) => entry.id === top.component)!.name);
    assert.ok(component!.inside > 0);
    assert.ok(!JSON.stringify(change.components).includes(top.uuid));
  });

  it('refuses an approval of a change that was not proposed, naming it', () => {
    const waiting: WaitingOf<'approval'> = {
      kind: 'approval',
      call_id: 'c1',
      expires_at: '2026-12-04T16:00:00.000Z',
      approval: { changes: [proposedChange(removal, layout, catalog)] },
    };
    const answer = (approved: string[]) => {
      const parsed = WaitAnswer.parse({ kind: 'approval', call_id: 'c1', approved });
      assert.equal(parsed.kind, 'approval');
      return parsed as Extract<typeof parsed, { kind: 'approval' }>;
    };
    assert.deepEqual(approvalProblems(waiting, answer(['c1'])), []);
    assert.deepEqual(approvalProblems(waiting, answer([])), []);
    assert.deepEqual(
      approvalProblems(waiting, answer(['c1', 'c9'])).map((problem) => problem.path),
      ['answer.approved.1'],
    );
  });

  it('is an optional part of an agent, refused when it names an output type no one knows', () => {
    const agent = { label: 'A', description: 'B', system_prompt: 'C' };
    assert.equal(AgentDefinition.safeParse({ ...agent, approve: { outputs: ['remove_components'] } }).success, true);
    assert.equal(AgentDefinition.safeParse({ ...agent, approve: { outputs: ['delete_page'] } }).success, false);
    assert.equal(AgentDefinition.safeParse({ ...agent, approve: { over_components: 0 } }).success, false);
  });
});
