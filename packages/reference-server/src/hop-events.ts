import type { ToolOutput } from '@canvas-ai/protocol';

/**
 * What a hop tells its client while it runs, for a streamed answer (spec §6.1). The JSON answer passes
 * {@link NO_HOP_EVENTS}: nothing is sent before the response.
 */
export interface HopEvents {
  /** The hop passed the turn rules: what follows is its answer (a stream may begin), never a refusal. */
  admitted(): void;
  /** The outputs of the parked calls this hop executed, before the model is called (only when there are some). */
  outputs(outputs: readonly ToolOutput[]): void;
  /** Pieces of the model's text as they arrive; absent when nobody reads them (the provider need not stream). */
  text?: ((delta: string) => void) | undefined;
}

/** The events of a hop answered as JSON: none. */
export const NO_HOP_EVENTS: HopEvents = { admitted() {}, outputs() {} };
