/**
 * Approval of destructive changes (spec/hop-protocol.md §20.5): the outputs of a hop that the agent's `approve` rule
 * marks are held back as a proposal (or, for a client that cannot ask, not sent at all), and the approved ones are
 * sent with the hop that brings the person's answer.
 */
import { applyOutputs, type HopRequest, type ToolOutput } from '@canvas-ai/protocol';
import {
  APPROVAL_PENDING_RESULT,
  APPROVAL_UNAVAILABLE_RESULT,
  APPROVED_RESULT,
  needsApproval,
  proposedChange,
  REJECTED_RESULT,
} from '@canvas-ai/protocol/server';
import type { HopRun, ParkedCallsStep } from './hop-run.js';
import type { TurnSoFar } from './turn-state.js';

/** Told to the model for a change that needs approval while another call of its reply already waits (spec §20.5). */
const APPROVAL_LATER_RESULT =
  "This change needs the person's approval; another call of the reply already waits for them, so propose it again after their answer.";

/**
 * Holds back this hop's outputs that need approval (spec §20.5): the rest stay the hop's outputs and the document the
 * client will hold; each held call's result in `step.messages` says so. With `waitMs`, the turn waits for the
 * person's decision (`step.waiting`, `step.proposal`); a client that did not declare the wait gets none of them.
 */
export function holdProposals(
  { deps, agent, turn, request }: Pick<HopRun, 'deps' | 'agent' | 'turn' | 'request'>,
  step: ParkedCallsStep,
  now: number,
): void {
  const requestLayout = request.context.current_layout;
  const held = step.outputs.filter((output) => needsApproval(output, agent.approve, requestLayout));
  if (held.length === 0) return;
  const sent = step.outputs.filter((output) => !held.includes(output));
  step.outputs = sent;
  step.document = applyOutputs({ layout: requestLayout, page: request.context.page }, sent);
  const declared = (turn.declared_waits ?? []).includes('approval');
  const asks = declared && step.waiting === undefined;
  const proposal: Array<{ output: ToolOutput; result: string }> = [];
  for (const output of held) {
    const at = step.messages.findIndex((message) => message.role === 'tool' && message.call_id === output.call_id);
    const message = step.messages[at];
    if (message?.role !== 'tool') continue;
    proposal.push({ output, result: message.content });
    const content = asks ? APPROVAL_PENDING_RESULT : declared ? APPROVAL_LATER_RESULT : APPROVAL_UNAVAILABLE_RESULT;
    step.messages[at] = { ...message, content };
  }
  if (!asks || proposal.length === 0) return;
  step.proposal = proposal;
  step.waiting = {
    kind: 'approval',
    call_id: proposal[0]!.output.call_id,
    expires_at: new Date(now + deps.ttl.waitMs).toISOString(),
    approval: { changes: proposal.map(({ output }) => proposedChange(output, requestLayout, deps.catalog)) },
  };
}

/** The proposed outputs the person approved in `request`'s answer, in their order (spec §20.5); none otherwise. */
export function approvedOutputs(turn: TurnSoFar | undefined, request: HopRequest): ToolOutput[] {
  const answer = request.answer;
  if (turn?.waiting?.kind !== 'approval' || answer?.kind !== 'approval' || !turn.proposal) return [];
  return turn.proposal.map(({ output }) => output).filter((output) => answer.approved.includes(output.call_id));
}

/** Each proposed call's result once the person decided (spec §20.5, worded exactly so). */
export function decidedResults(turn: TurnSoFar, approved: readonly string[]): Map<string, string> {
  return new Map(
    (turn.proposal ?? []).map(({ output, result }) => [
      output.call_id,
      approved.includes(output.call_id) ? `${APPROVED_RESULT}\n${result}` : REJECTED_RESULT,
    ]),
  );
}
