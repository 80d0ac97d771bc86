import { css } from 'lit';

/** Styles of `<canvas-ai-chat>`'s own shadow root (deep-chat's are in `deep-chat-theme.ts`). */
export const canvasAiChatStyles = css`
  :host {
    display: block;
    height: var(--canvas-ai-height, 32rem);
    font-family: var(--canvas-ai-font-family, inherit);
    font-size: var(--canvas-ai-font-size, 0.95rem);
    color: var(--canvas-ai-text-color, #1f2328);
  }
  :host([hidden]) {
    display: none;
  }
  .base {
    position: relative;
    display: flex;
    flex-direction: column;
    gap: 0.5rem;
    height: 100%;
    box-sizing: border-box;
  }
  .chat {
    display: flex;
    flex: 1;
    min-height: 0;
  }
  deep-chat {
    display: block;
    flex: 1;
    min-width: 0;
    height: 100%;
  }
  .toolbar {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    min-height: 2.25rem;
  }
  .toolbar[hidden] {
    display: none;
  }
  .announcer {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  .spacer {
    flex: 1;
  }
  .question,
  .plan {
    margin: 0.5rem 0;
    padding: 0.6rem 0.8rem;
    color: var(--canvas-ai-text-color, #1f2328);
    background: var(--canvas-ai-progress-background, #f8f9fb);
    border: 1px solid var(--canvas-ai-accent, #2563eb);
    border-radius: var(--canvas-ai-radius, 10px);
  }
  .question fieldset {
    display: flex;
    flex-direction: column;
    gap: 0.35rem;
    margin: 0;
    padding: 0;
    border: 0;
  }
  .question legend {
    margin-bottom: 0.35rem;
    padding: 0;
  }
  .question-label {
    display: block;
    font-size: 0.85em;
    color: var(--canvas-ai-muted-color, #57606a);
  }
  .question-choice,
  .question-own {
    display: flex;
    align-items: center;
    gap: 0.5rem;
  }
  .question-own input {
    flex: 1;
    padding: 0.3rem 0.5rem;
    font: inherit;
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
  }
  .question-status:empty {
    display: none;
  }
  .question-status {
    margin: 0.35rem 0 0;
    font-size: 0.85em;
    color: var(--canvas-ai-error-color, #b42318);
  }
  .question-buttons {
    display: flex;
    gap: 0.5rem;
    margin-top: 0.5rem;
  }
  .question-answer,
  .question-dismiss {
    padding: 0.35rem 0.8rem;
    font: inherit;
    border-radius: var(--canvas-ai-radius, 10px);
    cursor: pointer;
  }
  .question-answer {
    color: var(--canvas-ai-accent-contrast, #ffffff);
    background: var(--canvas-ai-accent, #2563eb);
    border: 1px solid var(--canvas-ai-accent, #2563eb);
  }
  .question-dismiss {
    color: var(--canvas-ai-text-color, #1f2328);
    background: var(--canvas-ai-background, #ffffff);
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
  }
  .plan-label {
    margin: 0 0 0.35rem;
    font-size: 0.85em;
    color: var(--canvas-ai-muted-color, #57606a);
  }
  .plan-rows {
    margin: 0 0 0.5rem;
    padding-left: 1.4rem;
  }
  .plan-row-components {
    display: block;
    font-size: 0.8em;
    color: var(--canvas-ai-muted-color, #57606a);
  }
  .plan-feedback {
    display: flex;
    flex-direction: column;
    gap: 0.25rem;
  }
  .plan-feedback input {
    padding: 0.3rem 0.5rem;
    font: inherit;
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
  }
  .plan-status:empty {
    display: none;
  }
  .plan-status {
    margin: 0.35rem 0 0;
    font-size: 0.85em;
    color: var(--canvas-ai-error-color, #b42318);
  }
  .plan-buttons {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    margin-top: 0.5rem;
  }
  .plan-buttons button {
    padding: 0.35rem 0.8rem;
    font: inherit;
    color: var(--canvas-ai-text-color, #1f2328);
    background: var(--canvas-ai-background, #ffffff);
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
    cursor: pointer;
  }
  .plan-buttons .plan-approve {
    color: var(--canvas-ai-accent-contrast, #ffffff);
    background: var(--canvas-ai-accent, #2563eb);
    border-color: var(--canvas-ai-accent, #2563eb);
  }
  .question :focus-visible,
  .plan :focus-visible {
    outline: 2px solid var(--canvas-ai-accent, #2563eb);
    outline-offset: 2px;
  }
  .notice {
    font-size: 0.85em;
    color: var(--canvas-ai-muted-color, #57606a);
  }
  .stop {
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
    padding: 0.35rem 0.8rem;
    font: inherit;
    color: var(--canvas-ai-accent, #2563eb);
    background: var(--canvas-ai-background, #ffffff);
    border: 1px solid var(--canvas-ai-accent, #2563eb);
    border-radius: var(--canvas-ai-radius, 10px);
    cursor: pointer;
  }
  .undo,
  .revert {
    padding: 0.35rem 0.8rem;
    font: inherit;
    color: var(--canvas-ai-text-color, #1f2328);
    background: var(--canvas-ai-background, #ffffff);
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
    cursor: pointer;
  }
  .undo::before {
    content: '↶ ';
  }
  .undo:focus-visible,
  .revert:focus-visible,
  .stop:focus-visible {
    outline: 2px solid var(--canvas-ai-accent, #2563eb);
    outline-offset: 2px;
  }
  .stop::before {
    content: '';
    width: 0.65em;
    height: 0.65em;
    background: currentColor;
    border-radius: 2px;
  }
  @media (prefers-reduced-motion: reduce) {
    * {
      transition: none !important;
      animation: none !important;
    }
  }
`;
