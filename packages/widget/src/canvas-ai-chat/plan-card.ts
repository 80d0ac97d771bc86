/**
 * The plan an agent proposes before it builds (spec §20.4), as the chat shows it: the rows in order, a field for
 * feedback and three buttons in a native form, so every part is keyboard-operable without code of ours (Tab between
 * them, Enter in the field revises); its texts the host's strings, the server's texts escaped by Lit as plain text.
 */
import type { WaitingOf } from '@canvas-ai/protocol';
import { html, type TemplateResult } from 'lit';
import type { PlanDecision } from '../hop-loop.js';
import type { ChatStrings } from './strings.js';

/** The plan shown, where the person's decision goes, and what Cancel does (stop the turn). */
export interface ShownPlanCard {
  waiting: WaitingOf<'plan'>;
  answer: (decision: PlanDecision) => void;
  cancel: () => void;
}

/** The card of `shown`: the numbered rows with their components, the feedback field, and the buttons. */
export function planCard(shown: ShownPlanCard, strings: ChatStrings): TemplateResult {
  const { plan, call_id: callId } = shown.waiting;
  // Revise is the form's submit: Enter in the feedback field revises, as its label says.
  const revise = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const feedback = String(new FormData(form).get('feedback') ?? '').trim();
    if (feedback === '') {
      const status = form.querySelector<HTMLElement>('.plan-status');
      if (status) status.textContent = strings.planFeedbackEmpty;
      form.querySelector<HTMLElement>('[name="feedback"]')?.focus();
      return;
    }
    shown.answer({ decision: 'revise', feedback });
  };
  return html`<form part="plan" class="plan" aria-labelledby="plan-${callId}" @submit=${revise}>
    <p id="plan-${callId}" class="plan-label">${strings.planLabel}</p>
    <ol part="plan-rows" class="plan-rows">
      ${plan.rows.map(
        (row) =>
          html`<li part="plan-row" class="plan-row">
            <span class="plan-row-title">${row.title}</span>
            <span class="plan-row-components">${row.components.join(', ')}</span>
          </li>`,
      )}
    </ol>
    <label class="plan-feedback">
      <span>${strings.planFeedback}</span>
      <input part="plan-feedback" type="text" name="feedback" maxlength="2000" autocomplete="off" />
    </label>
    <p class="plan-status" role="status"></p>
    <div class="plan-buttons">
      <button
        part="plan-approve"
        class="plan-approve"
        type="button"
        @click=${() => shown.answer({ decision: 'approve' })}
      >
        ${strings.planApprove}
      </button>
      <button part="plan-revise" class="plan-revise" type="submit">${strings.planRevise}</button>
      <button part="plan-cancel" class="plan-cancel" type="button" @click=${() => shown.cancel()}>
        ${strings.planCancel}
      </button>
    </div>
  </form>`;
}
