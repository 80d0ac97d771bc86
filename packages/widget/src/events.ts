/**
 * The DOM events `<canvas-ai-chat>` dispatches for its host page. All bubble and are composed, so a host listens
 * on the element or anywhere above it, even across shadow roots.
 */
import type { ApplyResult, FinalHopResponse, HopResponse } from '@canvas-ai/protocol';
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
}

/** `canvas-ai-hop`: one hop's response arrived and its outputs were applied. */
export interface HopDetail {
  requestId: string;
  hop: number;
  response: HopResponse;
  /** What the host's `applyOutputs` returned (sent with the next hop). */
  applyResults: ApplyResult[] | undefined;
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

/** Every event of the widget, by name. */
export interface CanvasAiEventMap {
  'canvas-ai-turn-start': CanvasAiTurnStartEvent;
  'canvas-ai-hop': CanvasAiHopEvent;
  'canvas-ai-turn-end': CanvasAiTurnEndEvent;
  'canvas-ai-error': CanvasAiErrorEvent;
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
