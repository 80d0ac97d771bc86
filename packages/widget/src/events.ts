/**
 * The DOM events `<canvas-ai-chat>` dispatches for its host page. All bubble and are composed, so a host listens
 * on the element or anywhere above it, even across shadow roots.
 */
import type {
  ApplyResult,
  FinalHopResponse,
  HopResponse,
  HopUsage,
  TokenCounts,
  ToolOutput,
} from '@canvas-ai/protocol';
import type { TurnError } from './turn-error.js';

/** `canvas-ai-turn-start`: the user sent a message and its turn begins. */
export interface TurnStartDetail {
  requestId: string;
  /** The agent picked for this message; undefined → the main agent. */
  agent: string | undefined;
  /** The user's text. */
  message: string;
  /** How many files the user attached. */
  attachments: number;
  /** The turn was running before the page reloaded and goes on now (spec §18); its earlier hops are done. */
  resumed: boolean;
}

/** `canvas-ai-hop`: one hop's response arrived and its outputs were applied. */
export interface HopDetail {
  requestId: string;
  hop: number;
  response: HopResponse;
  /** What the host's `applyOutputs` returned (sent with the next hop). */
  applyResults: ApplyResult[] | undefined;
  /** The outputs that undo what this hop applied, in the order to apply them (spec §17). */
  inverse: ToolOutput[];
  /** The tokens of this hop's model call and of the turn so far, when the server reports them (spec §6.2). */
  usage: HopUsage | undefined;
}

/** `canvas-ai-turn-end`: the turn is over: answered, stopped, or failed. */
export interface TurnEndDetail {
  requestId: string;
  status: 'done' | 'stopped' | 'error';
  /** How many hops were sent. */
  hops: number;
  /** The final response, when `status` is `done`. */
  response: FinalHopResponse | undefined;
  /** What went wrong, when `status` is `error`. */
  error: TurnError | undefined;
  /** Every output of the turn the host applied, in order (none for a turn that changed nothing). */
  outputs: ToolOutput[];
  /**
   * The outputs that undo the whole turn, in the order to apply them (spec §17): a host with its own undo history
   * records them as one step. Each carries `replaces`, so applying them later keeps what the person changed since.
   */
  inverse: ToolOutput[];
  /**
   * The tokens of the turn's model calls, as the last response the chat received counted them (spec §6.2); undefined
   * when the server reports none. A stopped or failed turn may have cost more: a hop whose response never came.
   */
  usage: TokenCounts | undefined;
}

/** `canvas-ai-undo`: a turn was taken back, from the Undo button (`undo`) or Stop and revert (`revert`). */
export interface UndoDetail {
  requestId: string;
  reason: 'undo' | 'revert';
  /**
   * `undone`: everything taken back; `partial`: some changes stayed (the person changed them since); `failed`: none
   * could be taken back; `nothing`: the turn had changed nothing.
   */
  status: 'undone' | 'partial' | 'failed' | 'nothing';
  /** What the host reported for each inverse output it was given. */
  results: ApplyResult[];
  /** The inverse outputs the host refused. */
  notUndone: ToolOutput[];
  /** `outputs`: the inverse outputs went through `applyOutputs`; `history`: the host's `undoInHistory` took it back. */
  via: 'outputs' | 'history';
}

/** `canvas-ai-resume`: after a reload, the chat took up the turn that was running (spec §18). */
export interface ResumeDetail {
  requestId: string;
  /** `resumed`: it goes on; `finished`: it had ended, its answer is shown; `gone`: the server no longer has it. */
  outcome: 'resumed' | 'finished' | 'gone';
}

/** `canvas-ai-error`: a turn failed, or the agents config could not be loaded. */
export interface ErrorDetail {
  /** The failed turn; undefined for errors outside a turn. */
  requestId: string | undefined;
  /** A {@link TurnError} for turns; a plain Error otherwise. */
  error: TurnError | Error;
}

/** Fired when a turn starts. */
export type CanvasAiTurnStartEvent = CustomEvent<TurnStartDetail>;
/** Fired after each hop. */
export type CanvasAiHopEvent = CustomEvent<HopDetail>;
/** Fired when a turn ends. */
export type CanvasAiTurnEndEvent = CustomEvent<TurnEndDetail>;
/** Fired on errors. */
export type CanvasAiErrorEvent = CustomEvent<ErrorDetail>;
/** Fired when a turn was undone or reverted. */
export type CanvasAiUndoEvent = CustomEvent<UndoDetail>;
/** Fired when a reloaded chat took up its running turn. */
export type CanvasAiResumeEvent = CustomEvent<ResumeDetail>;

/** Every event of the widget, by name. */
export interface CanvasAiEventMap {
  'canvas-ai-turn-start': CanvasAiTurnStartEvent;
  'canvas-ai-hop': CanvasAiHopEvent;
  'canvas-ai-turn-end': CanvasAiTurnEndEvent;
  'canvas-ai-error': CanvasAiErrorEvent;
  'canvas-ai-undo': CanvasAiUndoEvent;
  'canvas-ai-resume': CanvasAiResumeEvent;
}

/** Builds one of the widget's events: bubbling and composed. */
export function canvasAiEvent<K extends keyof CanvasAiEventMap>(
  type: K,
  detail: CanvasAiEventMap[K]['detail'],
): CanvasAiEventMap[K] {
  return new CustomEvent(type, { detail, bubbles: true, composed: true }) as CanvasAiEventMap[K];
}

declare global {
  interface HTMLElementEventMap extends CanvasAiEventMap {}
}
