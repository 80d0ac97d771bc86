import type { ToolCall } from '../tools/execute-tool-calls.js';
import type { Scenario } from '../scenario/scenario.js';
import { HopError } from '../wire/errors.js';
import type { Attachment, HopRequest } from '../wire/hop-request.js';
import type { HopResponse } from '../wire/hop-response.js';
import type { ToolOutput } from '../wire/outputs.js';

/** The stored state of one scripted turn: what a real server keeps between hops (§2), plus the replay copy. */
export interface ScriptedTurn {
  requestId: string;
  agentId: string;
  /** The scenario replayed; undefined when none matched (the turn is the one-hop "scripted mode" answer). */
  scenario: Scenario | undefined;
  attachments: Attachment[];
  /** Model decisions made so far (bounded by the agent's max_hops). */
  decisions: number;
  /** Every model text of the turn, in order: the narration. */
  texts: string[];
  /** The calls of the last decision, executed at the start of the next hop. */
  parked: ToolCall[];
  /** Every output returned in the turn, for `{{placed.N}}`. */
  outputs: ToolOutput[];
  /** The last hop answered (0 while hop 1 runs). */
  lastHop: number;
  lastResponse: HopResponse | undefined;
  /** A hop of this turn is executing: the per-turn lock. */
  running: boolean;
  finished: boolean;
}

/** What to do with an incoming hop: run it on a locked turn, answer the stored response, or refuse it. */
export type HopClaim =
  | { kind: 'run'; turn: ScriptedTurn }
  | { kind: 'replay'; response: HopResponse }
  | { kind: 'error'; error: HopError };

/**
 * The mock's turn store: a Map in the closure of one `createHandlers` call (two calls, two independent servers).
 * Finished turns stay for replay of their last hop (no time window: the oldest are dropped past `keepFinished`).
 */
export class TurnStore {
  readonly #turns = new Map<string, ScriptedTurn>();
  readonly #keepFinished: number;

  constructor(keepFinished = 200) {
    this.#keepFinished = keepFinished;
  }

  /**
   * Decides what an incoming hop gets, by the admission rules of spec/hop-protocol.md §8 in their order: lock (409
   * hop_in_progress), unknown turn (410), agent (409 agent_changed; absent = the main agent), replay of the latest
   * hop, ended turn (410), order (409 hop_out_of_order). On `run` the turn is locked until {@link complete} or
   * {@link drop}; `start` seeds a new turn on hop 1.
   */
  claim(request: HopRequest, agentId: string, start: () => ScriptedTurn): HopClaim {
    const id = request.request_id;
    const turn = this.#turns.get(id);
    const refuse = (error: HopError): HopClaim => ({ kind: 'error', error });
    if (turn?.running) {
      return refuse(new HopError('hop_in_progress', `A hop of turn "${id}" is still running; wait for its response before sending hop ${request.hop}.`, { requestId: id }));
    }
    if (turn === undefined) {
      if (request.hop !== 1) {
        return refuse(new HopError('turn_not_found', `No turn "${id}" is running (it ended, was cancelled, failed or never started). Send the message again as a new turn.`, { requestId: id }));
      }
      const fresh = start();
      fresh.running = true;
      this.#turns.set(id, fresh);
      return { kind: 'run', turn: fresh };
    }
    if (agentId !== turn.agentId) {
      return refuse(new HopError('agent_changed', `Turn "${id}" runs agent "${turn.agentId}", not "${agentId}"; the agent cannot change within a turn.`, { requestId: id, field: 'agent' }));
    }
    if (request.hop === turn.lastHop && turn.lastResponse !== undefined) return { kind: 'replay', response: turn.lastResponse };
    if (turn.finished && request.hop > turn.lastHop) {
      return refuse(new HopError('turn_not_found', `Turn "${id}" ended at hop ${turn.lastHop}. Send the message again as a new turn.`, { requestId: id }));
    }
    if (request.hop !== turn.lastHop + 1) {
      return refuse(new HopError('hop_out_of_order', `Turn "${id}" is at hop ${turn.lastHop}; the next request must be hop ${turn.lastHop + 1}, not ${request.hop}.`, { requestId: id }));
    }
    turn.running = true;
    return { kind: 'run', turn };
  }

  /** Whether the turn is still stored (it was not cancelled while its hop ran). */
  holds(turn: ScriptedTurn): boolean {
    return this.#turns.get(turn.requestId) === turn;
  }

  /** Stores a hop's response for replay and unlocks the turn. */
  complete(turn: ScriptedTurn, response: HopResponse): void {
    turn.lastHop = response.hop;
    turn.lastResponse = response;
    turn.running = false;
    turn.finished = !response.should_continue;
    if (turn.finished) this.#evictFinished();
  }

  /** Forgets a turn whose hop failed: a failed turn never resumes (§3). */
  drop(turn: ScriptedTurn): void {
    if (this.holds(turn)) this.#turns.delete(turn.requestId);
  }

  /** Cancels a turn (DELETE): true when one was going on; a finished turn keeps its replay. Idempotent. */
  cancel(requestId: string): boolean {
    const turn = this.#turns.get(requestId);
    if (turn === undefined || turn.finished) return false;
    this.#turns.delete(requestId);
    return true;
  }

  #evictFinished(): void {
    const finished = [...this.#turns.values()].filter((turn) => turn.finished);
    for (const turn of finished.slice(0, Math.max(0, finished.length - this.#keepFinished))) this.#turns.delete(turn.requestId);
  }
}
