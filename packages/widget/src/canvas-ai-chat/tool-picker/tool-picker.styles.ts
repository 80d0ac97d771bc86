import { css } from 'lit';

/** Styles of `<canvas-ai-tool-picker>`; colours come from `<canvas-ai-chat>`'s custom properties. */
export const toolPickerStyles = css`
  :host {
    position: relative;
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
  }
  button {
    font: inherit;
    color: inherit;
    cursor: pointer;
  }
  .wrench {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 2rem;
    height: 2rem;
    padding: 0;
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
    background: var(--canvas-ai-background, #ffffff);
  }
  .wrench[aria-expanded='true'],
  .wrench.picked {
    border-color: var(--canvas-ai-accent, #2563eb);
    color: var(--canvas-ai-accent, #2563eb);
  }
  .chip {
    display: inline-flex;
    align-items: center;
    gap: 0.25rem;
    padding-block: 0.15rem;
    padding-inline: 0.6rem 0.25rem;
    border-radius: 999px;
    background: var(--canvas-ai-accent, #2563eb);
    color: var(--canvas-ai-accent-contrast, #ffffff);
    font-size: 0.85em;
  }
  .chip button {
    border: 0;
    background: transparent;
    padding: 0 0.3rem;
    line-height: 1;
  }
  .menu {
    position: absolute;
    bottom: calc(100% + 0.35rem);
    inset-inline-start: 0;
    z-index: 10;
    display: flex;
    flex-direction: column;
    min-width: 16rem;
    max-width: 22rem;
    padding: 0.3rem;
    border: 1px solid var(--canvas-ai-border-color, #d0d7de);
    border-radius: var(--canvas-ai-radius, 10px);
    background: var(--canvas-ai-background, #ffffff);
    box-shadow: 0 6px 24px rgb(0 0 0 / 0.12);
  }
  .option {
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: 0.1rem;
    padding: 0.45rem 0.6rem;
    border: 0;
    border-radius: calc(var(--canvas-ai-radius, 10px) - 4px);
    background: transparent;
    text-align: start;
  }
  .option:hover,
  .option:focus-visible {
    background: var(--canvas-ai-reply-background, #f1f3f5);
  }
  .wrench:focus-visible,
  .chip button:focus-visible,
  .option:focus-visible {
    outline: 2px solid var(--canvas-ai-accent, #2563eb);
    outline-offset: 2px;
  }
  .chip button:focus-visible {
    outline-color: var(--canvas-ai-accent-contrast, #ffffff);
  }
  .option[aria-checked='true'] .label::after {
    content: ' \\2713';
    color: var(--canvas-ai-accent, #2563eb);
  }
  .description {
    font-size: 0.85em;
    color: var(--canvas-ai-muted-color, #57606a);
  }
`;
