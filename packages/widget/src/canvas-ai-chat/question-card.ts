/**
 * The question an agent asks inside a turn (spec §20.2), as the chat shows it: a native form, so every part is
 * keyboard-operable without code of ours (Tab between the choices and the buttons, arrows within a radio group,
 * Enter answers), its texts the host's strings, the server's texts escaped by Lit as plain text.
 */
import type { WaitingOf } from '@canvas-ai/protocol';
import { html, nothing, type TemplateResult } from 'lit';
import type { PersonAnswer } from '../hop-loop.js';
import type { ChatStrings } from './strings.js';

/** The question shown, and where the person's answer goes. */
export interface AskedQuestion {
  waiting: WaitingOf<'question'>;
  answer: (answer: PersonAnswer) => void;
}

/** The card of `asked`: the question, its choices (radios, or checkboxes for `multiple`), a text field, the buttons. */
export function questionCard(asked: AskedQuestion, strings: ChatStrings): TemplateResult {
  const { question, call_id: callId } = asked.waiting;
  const type = question.multiple ? 'checkbox' : 'radio';
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const choices = data.getAll('choice').map((value) => Number(value));
    const text = String(data.get('text') ?? '').trim();
    const status = form.querySelector<HTMLElement>('.question-status');
    // Nothing picked and nothing written: say so in place, and send nothing.
    if (choices.length === 0 && text === '') {
      if (status) status.textContent = strings.questionEmpty;
      return;
    }
    asked.answer({ choices, ...(text === '' ? {} : { text }) });
  };
  return html`<form part="question" class="question" aria-labelledby="question-${callId}" @submit=${submit}>
    <fieldset>
      <legend id="question-${callId}">
        <span class="question-label">${strings.questionLabel}</span>
        <span part="question-text" class="question-text">${question.text}</span>
      </legend>
      ${question.choices.map(
        (choice, index) =>
          html`<label part="question-choice" class="question-choice">
            <input type=${type} name="choice" value=${String(index)} />
            <span>${choice}</span>
          </label>`,
      )}
      ${
        question.free_text
          ? html`<label class="question-own">
              <span>${strings.questionOwnAnswer}</span>
              <input part="question-input" type="text" name="text" maxlength="2000" autocomplete="off" />
            </label>`
          : nothing
      }
    </fieldset>
    <p class="question-status" role="status"></p>
    <div class="question-buttons">
      <button part="question-answer" class="question-answer" type="submit">${strings.questionAnswer}</button>
      <button
        part="question-dismiss"
        class="question-dismiss"
        type="button"
        @click=${() => asked.answer({ dismissed: true })}
      >
        ${strings.questionDismiss}
      </button>
    </div>
  </form>`;
}
