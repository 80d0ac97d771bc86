import type { JsonValue, ToolOutput } from '@canvas-ai/protocol';
import type { TurnError } from '../turn-error.js';

/** Why an undo ran: after the turn (Undo), or as its stop (Stop and revert). */
type UndoKind = 'undo' | 'revert';

/**
 * Every text `<canvas-ai-chat>` shows, with English defaults: set `strings` to replace any of them (the rest stay
 * English). Texts with parts that vary are functions. The transcript lines the model reads stay English, as the
 * system prompt is. Server texts (narration, answers, the server's error messages) are shown as they come.
 */
export interface ChatStrings {
  /** The text input's placeholder, also its accessible name. */
  placeholder: string;
  /** The narration block's status row while the agent works, and after it ended each way. */
  working: string;
  done: string;
  stopped: string;
  failed: string;
  /** Before the struck-through last paragraph of a stopped turn: the step it announced did not run. */
  notRun: string;
  /** The toolbar's buttons, and their accessible names. */
  stop: string;
  stopLabel: string;
  revert: string;
  revertLabel: string;
  undo: string;
  undoLabel: string;
  /** Why `sendMessage()` was refused: a turn runs. */
  busy: string;
  /** The note a stop leaves in the chat. */
  youStopped: string;
  /** After a reload, when the server no longer has the turn that was running. */
  resumeGone: string;
  /** The tools picker: its wrench, its list, and the chip's button back to the main agent. */
  pickAgent: string;
  agentList: string;
  backTo: (mainAgent: string) => string;
  /** The chat's live region, which announces the narration and the answers to screen readers. */
  announcer: string;
  /** deep-chat's send button, and its scrolling list of messages. */
  send: string;
  messages: string;
  /** What a failed turn shows: default the error's own message (the loop's, or the server's). */
  turnError: (error: TurnError) => string;
  /**
   * What a failed turn shows instead when the agent server is on another origin (`server`) than the page (`page`) and
   * sent no answer the page may read (the error's `serverOrigin` is set): it is down, or it does not allow the page.
   */
  originNotAllowed: (server: string, page: string) => string;
  /** An output of the agent's the editor did not apply, and why (`reason` empty: no reason given). */
  notApplied: (change: string, reason: string) => string;
  /** The person's edits kept over the agent's: each one named by `keptValue`. */
  editKept: (kept: readonly string[]) => string;
  /** An undo that could not take a change back: the person's later edit, or the editor's reason. */
  undoKept: (change: string, kept: readonly string[]) => string;
  undoRefused: (change: string, reason: string) => string;
  noInverse: (change: string) => string;
  /** The summary line of an undo: `status` says whether all, part or nothing was taken back. */
  undoSummary: (kind: UndoKind, status: 'undone' | 'partial' | 'nothing') => string;
  /** A change of the agent's, named as the person saw it; `undone` names what an inverse output takes back. */
  change: (output: ToolOutput, undone: boolean) => string;
  /** A change the editor refused that the response does not name. */
  unknownChange: string;
  /** One kept value: a page field, a prop, a slot, a place, or where the person moved it (`value` is quoted). */
  keptValue: (kind: 'page' | 'prop' | 'slot' | 'place' | 'moved', name: string, value: string) => string;
  /** A value cleared by the person. */
  cleared: string;
}

/** The English texts. */
export const DEFAULT_STRINGS: ChatStrings = {
  placeholder: 'Ask the assistant…',
  working: 'Working…',
  done: 'Done',
  stopped: 'Stopped',
  failed: 'Stopped by an error',
  notRun: 'Not done (stopped before this step):',
  stop: 'Stop',
  stopLabel: 'Stop the agent',
  revert: 'Stop and revert',
  revertLabel: 'Stop the agent and undo what it changed',
  undo: 'Undo',
  undoLabel: "Undo the agent's last turn",
  busy: 'Wait for the current answer, or stop it, before sending another message.',
  youStopped: 'You stopped the agent.',
  resumeGone: 'The turn that was running when the page reloaded could not be resumed: the server no longer has it.',
  pickAgent: 'Pick an agent for the next message',
  agentList: 'Agents',
  backTo: (mainAgent) => `Back to ${mainAgent}`,
  announcer: 'Chat updates',
  send: 'Send',
  messages: 'Messages',
  turnError: (error) => error.message,
  originNotAllowed: (server, page) =>
    `The agent server at ${server} could not be reached. If it is running, it may not allow this page's origin: ` +
    `add ${page} to its allowed origins (on the reference server: --allowed-origins or CANVAS_AI_ALLOWED_ORIGINS, ` +
    `createApp's security.allowedOrigins).`,
  notApplied: (change, reason) => `${change} could not be applied: ${reason || 'the editor refused it'}`,
  editKept: (kept) =>
    `Your edit was kept: you changed ${kept.join(', ')} while the agent worked, so its change there was not applied.`,
  undoKept: (change, kept) => `Kept your later edit: ${kept.join(', ')}, so ${change.toLowerCase()} was not undone.`,
  undoRefused: (change, reason) => `${change} could not be undone: ${reason || 'the editor refused it'}`,
  noInverse: (change) => `${change} of the agent's could not be undone: it has no undo.`,
  undoSummary: (kind, status) => {
    const what = kind === 'revert' ? 'Stopped and reverted' : 'Undone';
    if (status === 'nothing') return `${what}: the agent had not changed the page.`;
    return status === 'undone'
      ? `${what}: the page is back as it was before the agent's turn.`
      : `${what}, except what is listed below.`;
  },
  change: (output, undone) => changeName(output, undone),
  keptValue: (kind, name, value) => {
    if (kind === 'page') return `the page ${name} (${value})`;
    if (kind === 'prop') return `the ${name} (${value})`;
    if (kind === 'slot') return `what its ${name} holds`;
    return kind === 'moved' ? `where you moved it (${name})` : `where it is (${name})`;
  },
  cleared: 'cleared',
  unknownChange: 'A change',
};

function changeName(output: ToolOutput, undone: boolean): string {
  switch (output.type) {
    case 'place_components':
      return undone ? 'The removed section' : 'A new section';
    case 'edit_components':
      return undone ? 'The edit' : 'An edit';
    case 'set_page_value':
      return `The page ${output.field}`;
    case 'remove_components':
      return undone ? 'The new section' : 'A removal';
    case 'move_components':
      return undone ? 'The move' : 'A move';
  }
}

/** The strings in use: the host's over the English defaults. */
export function chatStrings(host: Partial<ChatStrings> | undefined): ChatStrings {
  return host ? { ...DEFAULT_STRINGS, ...host } : DEFAULT_STRINGS;
}

/** A value quoted in a notice, cut at `max` characters. */
export function quoteValue(value: JsonValue, strings: ChatStrings, max = 80): string {
  if (value === null) return strings.cleared;
  const text = typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
