/**
 * Changes the agent proposes that wait for the person's approval (spec §20.5), as the chat shows them: a native form
 * with one ticked checkbox per change (Tab and Space work without code of ours), Approve sends the ticked ones,
 * Reject none; the components are named by the catalog and their own text, escaped by Lit as plain text.
 */
import type { ProposedChange, WaitingOf } from '@canvas-ai/protocol';
import { html, type TemplateResult } from 'lit';
import type { ApprovalDecision } from '../hop-loop.js';
import type { ChatStrings } from './strings.js';

/** The proposal shown, and where the person's decision goes. */
export interface AskedApproval {
  waiting: WaitingOf<'approval'>;
  decide: (decision: ApprovalDecision) => void;
}

/** One change as a line: what it does to which components (the words are the host's strings). */
function changeLine(change: ProposedChange, strings: ChatStrings): string {
  const components = change.components.map((component) => strings.approvalComponent(component)).join(', ');
  return strings.approvalChange(change.type, components);
}

/** The card of `asked`: a checkbox per change, ticked, then Approve and Reject. */
export function approvalCard(asked: AskedApproval, strings: ChatStrings): TemplateResult {
  const { approval, call_id: callId } = asked.waiting;
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    asked.decide({ approved: data.getAll('change').map(String) });
  };
  return html`<form part="approval" class="question" aria-labelledby="approval-${callId}" @submit=${submit}>
    <fieldset>
      <legend id="approval-${callId}"><span class="question-label">${strings.approvalLabel}</span></legend>
      ${approval.changes.map(
        (change) =>
          html`<label part="approval-change" class="question-choice">
            <input type="checkbox" name="change" value=${change.call_id} checked />
            <span>${changeLine(change, strings)}</span>
          </label>`,
      )}
    </fieldset>
    <div class="question-buttons">
      <button part="approval-approve" class="question-answer" type="submit">${strings.approvalApprove}</button>
      <button
        part="approval-reject"
        class="question-dismiss"
        type="button"
        @click=${() => asked.decide({ approved: [] })}
      >
        ${strings.approvalReject}
      </button>
    </div>
  </form>`;
}
