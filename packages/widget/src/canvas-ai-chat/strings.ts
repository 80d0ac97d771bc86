import type { JsonValue, ToolOutput } from '@canvas-ai/protocol';
import { readableName } from '../component-places.js';
import type { TurnError } from '../turn-error.js';

/** Why an undo ran: after the turn (Undo), or as its stop (Stop and revert). */
type UndoKind = 'undo' | 'revert';

/** Where a component named in a notice is: its row in a region, the label of the row it is inside, gone or not. */
export interface PlaceShown {
  region: string;
  /** 1 for the region's first row. */
  row: number;
  /** The label of its row's component, for a component inside it. */
  within?: string | undefined;
  /** No longer on the page: the place is where it was. */
  gone?: boolean | undefined;
}

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
  /** The picked agent is no longer offered (the site's settings changed): the pick was dropped. */
  toolGone: (tool: string, mainAgent: string) => string;
  /** The chat's live region, which announces the narration and the answers to screen readers. */
  announcer: string;
  /** A question the agent asks inside a turn (spec §20.2): the card's caption, its text field and buttons. */
  questionLabel: string;
  questionOwnAnswer: string;
  questionAnswer: string;
  questionDismiss: string;
  /** Said when the person answers with nothing picked and nothing written. */
  questionEmpty: string;
  /** What the live region reads when the agent asks (`question` is the server's text). */
  questionAsked: (question: string) => string;
  /** Read out when the agent takes a look at the page: the host's screenshot goes with the next step (spec §20.3). */
  screenshotTaken: string;
  /** A plan the agent proposes before it builds (spec §20.4): the card's caption, its feedback field and buttons. */
  planLabel: string;
  planFeedback: string;
  planApprove: string;
  planRevise: string;
  planCancel: string;
  /** Shown in the card when Revise is pressed with no feedback written. */
  planFeedbackEmpty: string;
  /** What the live region reads when a plan is shown (`titles` are the server's row titles, in order). */
  planShown: (titles: readonly string[]) => string;
  /** Changes the agent proposes (spec §20.5): the card's caption, its buttons, and what the live region reads. */
  approvalLabel: string;
  approvalApprove: string;
  approvalReject: string;
  approvalAsked: (changes: number) => string;
  /** One change as a line: `type` the output's type, `components` the components' lines joined. */
  approvalChange: (type: string, components: string) => string;
  /** One component of a change: its catalog name, its own text if any, how many components are inside it. */
  approvalComponent: (component: { name: string; text?: string | undefined; inside: number }) => string;
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
  /** Why an undo could not take a change back when its component is no longer on the page. */
  gone: string;
  /**
   * The summary line of an undo: `status` says whether all (`undone`), part (`partial`) or none (`failed`) of the
   * turn was taken back, or that it had changed nothing (`nothing`).
   */
  undoSummary: (kind: UndoKind, status: 'undone' | 'partial' | 'failed' | 'nothing') => string;
  /** The note when the editor's own undo (its history) took the agent's turn back, and when its redo applied it again. */
  historyUndone: string;
  historyRedone: string;
  /**
   * A change of the agent's, named as the person saw it: `undone` names what an inverse output takes back (then
   * `components` names its components with {@link ChatStrings.componentAt}, for use mid-sentence).
   */
  change: (output: ToolOutput, undone: boolean, components: readonly string[]) => string;
  /**
   * A component's label from its catalog id: default a readable name from the id (`sdc.demo.two_column` → `two
   * column`); give your editor's labels here.
   */
  componentLabel: (component: string) => string;
  /** A component named by its label and its place on the page (`the hero, row 1 of content`); `place` may be unknown. */
  componentAt: (label: string, place: PlaceShown | undefined) => string;
  /** A component whose catalog id is not known. */
  unknownComponent: string;
  /** A change the editor refused that the response does not name. */
  unknownChange: string;
  /** One kept value: a page field, a prop, a slot, a place, or where the person moved it (`value` is quoted). */
  keptValue: (kind: 'page' | 'prop' | 'slot' | 'place' | 'moved', name: string, value: string) => string;
  /** A value cleared by the person. */
  cleared: string;
}

/** The English texts. */
/** What each output type does, as the approval card says it (spec §20.5). */
const CHANGE_VERBS: Record<string, string> = {
  remove_components: 'Remove',
  edit_components: 'Change',
  move_components: 'Move',
  place_components: 'Add',
  set_page_value: 'Set a page value',
};

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
  toolGone: (tool, mainAgent) =>
    `${tool} is no longer offered, so it was unpicked${mainAgent ? `: ${mainAgent} answers` : ''}.`,
  announcer: 'Chat updates',
  questionLabel: 'The agent asks:',
  questionOwnAnswer: 'Your own answer',
  questionAnswer: 'Answer',
  questionDismiss: 'Dismiss',
  questionEmpty: 'Pick an answer or write your own, or dismiss the question.',
  questionAsked: (question) => `The agent asks: ${question}`,
  screenshotTaken: 'The agent takes a look at the page.',
  planLabel: 'The agent plans these rows:',
  planFeedback: 'What should change? (then Revise)',
  planApprove: 'Approve and build',
  planRevise: 'Revise',
  planCancel: 'Cancel',
  planFeedbackEmpty: 'Write what should change in the plan, or approve it as it is.',
  planShown: (titles) =>
    `The agent proposes a plan of ${titles.length} ${titles.length === 1 ? 'row' : 'rows'}: ${titles.join('; ')}. Approve it, revise it, or cancel.`,
  approvalLabel: 'The agent asks before it makes these changes:',
  approvalApprove: 'Approve',
  approvalReject: 'Reject',
  approvalAsked: (changes) =>
    `The agent asks before it makes ${changes === 1 ? 'a change' : `${changes} changes`}: approve or reject.`,
  approvalChange: (type, components) => `${CHANGE_VERBS[type] ?? type}: ${components}`,
  approvalComponent: ({ name, text, inside }) =>
    `${name}${text ? ` “${text}”` : ''}${inside > 0 ? ` (with ${inside} inside)` : ''}`,
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
  undoKept: (change, kept) => `Did not undo ${change}: you changed ${kept.join(', ')} since.`,
  undoRefused: (change, reason) => `Could not undo ${change}: ${reason || 'the editor refused it'}`,
  noInverse: (change) => `Could not undo ${change}: it has no undo.`,
  gone: 'it is no longer on the page.',
  undoSummary: (kind, status) => {
    const revert = kind === 'revert';
    switch (status) {
      case 'nothing':
        return `${revert ? 'Stopped and reverted' : 'Undone'}: the agent had not changed the page.`;
      case 'undone':
        return `${revert ? 'Stopped and reverted' : 'Undone'}: the page is back as it was before the agent's turn.`;
      case 'partial':
        return revert
          ? 'Stopped and partly reverted: what is listed below stays on the page.'
          : 'Partly undone: what is listed below stays on the page.';
      case 'failed':
        return revert
          ? "Stopped, but could not revert the agent's turn: nothing of it could be taken back."
          : "Could not undo the agent's turn: nothing of it could be taken back.";
    }
  },
  historyUndone: "You undid the agent's turn in the editor.",
  historyRedone: "You redid the agent's turn in the editor.",
  change: (output, undone, components) => changeName(output, undone, components),
  componentLabel: (component) => readableName(component),
  componentAt: (label, place) => {
    if (!place) return `the ${label}`;
    const row = `row ${place.row} of ${place.region}`;
    const where = place.within ? `in the ${place.within}, ${row}` : row;
    if (place.gone) return `the ${label} that was ${where}`;
    return place.within ? `the ${label} ${where}` : `the ${label}, ${where}`;
  },
  unknownComponent: 'a component',
  keptValue: (kind, name, value) => {
    if (kind === 'page') return `the page ${name} (${value})`;
    if (kind === 'prop') return `the ${name} (${value})`;
    if (kind === 'slot') return `what its ${name} holds`;
    return kind === 'moved' ? `where you moved it (${name})` : `where it is (${name})`;
  },
  cleared: 'cleared',
  unknownChange: 'A change',
};

function changeName(output: ToolOutput, undone: boolean, components: readonly string[]): string {
  if (!undone) {
    const names = { place_components: 'A new section', edit_components: 'An edit', remove_components: 'A removal' };
    if (output.type === 'set_page_value') return `The page ${output.field}`;
    return output.type === 'move_components' ? 'A move' : names[output.type];
  }
  const listed =
    components.length > 3
      ? `${components.slice(0, 3).join(', ')} and ${components.length - 3} more`
      : components.join(', ');
  switch (output.type) {
    case 'place_components':
      return listed ? `removing ${listed}` : 'the removal';
    case 'edit_components':
      return listed ? `the edit of ${listed}` : 'the edit';
    case 'set_page_value':
      return `the page ${output.field}`;
    case 'remove_components':
      return listed ? `adding ${listed}` : 'the new section';
    case 'move_components':
      return listed ? `the move of ${listed}` : 'the move';
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
