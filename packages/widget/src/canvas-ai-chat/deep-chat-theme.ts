/**
 * How `<deep-chat>` looks inside `<canvas-ai-chat>`. Every colour and size is a CSS custom property of
 * `<canvas-ai-chat>` with a default: custom properties inherit into deep-chat's shadow root, so a host themes the
 * messages without reaching into any shadow root. deep-chat applies these objects as inline styles.
 */
import { LIMITS, type AgentsResponse } from '@canvas-ai/protocol';
import type { DeepChat } from 'deep-chat';
import type { ChatOptions } from './chat-types.js';
import type { ChatStrings } from './strings.js';
import type { CustomNames, Signals } from './deep-chat-types.js';
import { ERROR_ROLE } from './transcript.js';

/**
 * The whole deep-chat configuration: the widget's theme, the host's options on top, then what the widget must
 * own: the handler (request/response mode, see the README on why not streaming), the narration CSS, errors shown
 * with their text, and a text limit no longer than the protocol's.
 */
export function deepChatConfig(
  handler: (body: unknown, signals: Signals) => void,
  agents: AgentsResponse | undefined,
  strings: ChatStrings,
  options: ChatOptions = {},
): Partial<DeepChat> {
  const theme = themeOptions(strings);
  const limit = Math.min(options.textInput?.characterLimit ?? LIMITS.messageChars, LIMITS.messageChars);
  // The type keeps `remarkable` out; this keeps it out of a page that sets it from plain JavaScript.
  // The host's options are deep-chat's own (chat-types.ts restates their shapes loosely, for the declarations).
  const { remarkable: _markdown, ...passed } = options as Partial<DeepChat>;
  return {
    ...theme,
    names: namesFor(agents),
    ...passed,
    textInput: { ...theme.textInput, ...passed.textInput, characterLimit: limit },
    errorMessages: { ...passed.errorMessages, displayServiceErrorMessages: true },
    auxiliaryStyle: PROGRESS_STYLE + (passed.auxiliaryStyle ?? ''),
    connect: { handler },
  };
}

/** `var(--canvas-ai-<name>, <fallback>)`: one of `<canvas-ai-chat>`'s custom properties, with its default. */
const cssVar = (name: string, fallback: string): string => `var(--canvas-ai-${name}, ${fallback})`;

const TEXT = cssVar('text-color', '#1f2328');
const ACCENT = cssVar('accent', '#2563eb');

/** The deep-chat options the widget sets; a host's `chatOptions` replace them key by key. */
function themeOptions(strings: ChatStrings): Partial<DeepChat> {
  return {
    chatStyle: {
      width: '100%',
      height: '100%',
      boxSizing: 'border-box',
      fontFamily: cssVar('font-family', 'inherit'),
      fontSize: cssVar('font-size', '0.95rem'),
      color: TEXT,
      backgroundColor: cssVar('background', '#ffffff'),
      border: `1px solid ${cssVar('border-color', '#d0d7de')}`,
      borderRadius: cssVar('radius', '10px'),
    },
    messageStyles: {
      default: {
        // `shared` styles every role, agents included (replies use the agent's id as their role).
        shared: {
          bubble: {
            backgroundColor: cssVar('reply-background', '#f1f3f5'),
            color: cssVar('reply-color', TEXT),
            maxWidth: '85%',
          },
        },
        user: {
          bubble: {
            backgroundColor: cssVar('user-bubble-background', ACCENT),
            color: cssVar('user-bubble-color', '#ffffff'),
          },
        },
      },
      error: {
        bubble: { backgroundColor: cssVar('error-background', '#fef3f2'), color: cssVar('error-color', '#b42318') },
      },
    },
    textInput: {
      placeholder: { text: strings.placeholder },
      styles: { container: { backgroundColor: cssVar('input-background', '#ffffff'), color: TEXT } },
    },
    errorMessages: { displayServiceErrorMessages: true },
  };
}

/** The name shown above each reply: the agent's label (replies carry the agent's id as their role). */
export function namesFor(agents: AgentsResponse | undefined): CustomNames {
  const names: CustomNames = { user: { style: { display: 'none' } }, [ERROR_ROLE]: { style: { display: 'none' } } };
  for (const agent of agents ? [agents.main_agent, ...agents.tools] : []) {
    names[agent.id] = { text: agent.label, style: { color: cssVar('muted-color', '#57606a'), fontSize: '0.8em' } };
  }
  return names;
}

/**
 * CSS injected into deep-chat's shadow root (its `auxiliaryStyle`): the narration block, its notices and its status
 * row, and the error bubble. The answer is an html message too, so each bubble is told apart by its content
 * (`:has`), and `!important` beats the reply style deep-chat sets inline on every reply bubble.
 */
const PROGRESS_STYLE = `
.message-bubble:has(.canvas-ai-progress) { background-color: ${cssVar('progress-background', '#f8f9fb')} !important;
  color: ${cssVar('progress-color', '#57606a')} !important;
  border: 1px dashed ${cssVar('border-color', '#d0d7de')} !important; }
.canvas-ai-progress { display: flex; flex-direction: column; gap: 0.5em; }
.canvas-ai-progress-text { line-height: 1.45; overflow-wrap: anywhere; }
.canvas-ai-notices { margin: 0; padding: 0; list-style: none; display: flex; flex-direction: column; gap: 0.35em; }
.canvas-ai-notice { padding: 0.35em 0.6em; border-inline-start: 3px solid ${cssVar('notice-color', '#9a6700')};
  background: ${cssVar('notice-background', '#fff8c5')}; color: ${cssVar('notice-text-color', '#3b2300')};
  border-radius: 4px; line-height: 1.4; overflow-wrap: anywhere; }
.canvas-ai-progress-status { display: flex; align-items: center; gap: 0.45em; font-size: 0.85em;
  color: ${cssVar('muted-color', '#57606a')}; }
.canvas-ai-progress-icon { width: 0.9em; height: 0.9em; flex: none; box-sizing: border-box; display: inline-flex;
  align-items: center; justify-content: center; font-size: 0.85em; line-height: 1; }
.canvas-ai-progress-icon-running { border: 2px solid ${ACCENT}; border-right-color: transparent; border-radius: 50%;
  animation: canvas-ai-spin 0.8s linear infinite; }
.canvas-ai-progress-icon-done::before { content: '\\2713'; color: ${cssVar('success-color', '#1a7f37')};
  font-weight: bold; }
.canvas-ai-progress-icon-stopped::before { content: '\\25A0'; color: ${cssVar('muted-color', '#57606a')}; }
.canvas-ai-progress-icon-failed::before { content: '!'; color: ${cssVar('error-color', '#b42318')}; font-weight: bold; }
.canvas-ai-not-run del { text-decoration-thickness: 1px; }
.canvas-ai-not-run-label { font-style: italic; }
.canvas-ai-note { display: flex; flex-direction: column; gap: 0.4em; }
.canvas-ai-note-text { line-height: 1.45; overflow-wrap: anywhere; }
@keyframes canvas-ai-spin { to { transform: rotate(360deg); } }
.message-bubble:has(.canvas-ai-error) { background-color: ${cssVar('error-background', '#fef3f2')} !important;
  color: ${cssVar('error-color', '#b42318')} !important; }
.canvas-ai-error-text { overflow-wrap: anywhere; }
.canvas-ai-error-code { margin-top: 0.35em; font-size: 0.8em; font-family: ui-monospace, monospace; opacity: 0.8; }
#messages:focus-visible { outline: 2px solid ${ACCENT}; outline-offset: -2px; }
.input-button:focus-visible { outline: 2px solid ${ACCENT}; outline-offset: 2px; }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation: none !important; transition: none !important; scroll-behavior: auto !important; }
  .canvas-ai-progress-icon-running { border-right-color: ${ACCENT}; border-style: dotted; }
}
`;
