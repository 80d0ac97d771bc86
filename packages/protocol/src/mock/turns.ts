import type { ToolCall } from '../tools/execute-tool-calls.js';
import type { Scenario } from '../scenario/scenario.js';
import { admitHop } from '../turn/admit-hop.js';
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

/** What to do with an incoming hop that passed the turn rules: run it on the locked turn, or answer the stored response. */
export type HopClaim = { kind: 'run'; turn: ScriptedTurn } | { kind: 'replay'; response: HopResponse };

/**
 * The mock's turn store: a Map in the closure of one `createHandlers` call (two calls, two independent servers).
 * Finished turns stay for replay of their last hop (no time window: the oldest are dropped past `keepFinished`).
 */
export class TurnStore {
  readonly #turns = new Map<string, ScriptedTurn>();
  /** Ids of cancelled turns: every later hop of one gets 410, hop 1 included (§8 rule 2). Oldest dropped first. */
  readonly #cancelled = new Set<string>();
  readonly #keepFinished: number;
  readonly #keepCancelled: number;

  constructor(keepFinished = 200, keepCancelled = 1000) {
    this.#keepFinished = keepFinished;
    this.#keepCancelled = keepCancelled;
  }

  /**
   * Decides what an incoming hop gets by the protocol's shared turn rules (`admitHop`, spec/hop-protocol.md §8),
   * throwing the refusal's {@link HopError}. On `run` the turn is locked until {@link complete} or {@link drop};
   * `start` seeds a new turn on hop 1.
   */
  claim(request: HopRequest, agentId: string, start: () => ScriptedTurn): HopClaim {
    const id = request.request_id;
    const turn = this.#turns.get(id);
    const stored =
      turn?.lastResponse === undefined ? undefined : { agent: turn.agentId, hop: turn.lastHop, ended: turn.finished };
    const decision = admitHop({
      requestId: id,
      hop: request.hop,
      agentId,
      busy: turn?.running ?? false,
      cancelled: this.#cancelled.has(id),
      turn: stored,
    });
    if (decision === 'replay') return { kind: 'replay', response: turn!.lastResponse! };
    const claimed = decision === 'resume' ? turn! : start();
    claimed.running = true;
    this.#turns.set(id, claimed);
    return { kind: 'run', turn: claimed };
  }

  /** Whether the turn is still stored (it was not cancelled while its hop ran). */
  holds(turn: ScriptedTurn): boolean {
    return this.#turns.get(turn.requestId) === turn;
  }

  /**
   * Stores a hop's response for replay and unlocks the turn. False when the turn was cancelled while the hop ran:
   * then nothing is stored and the hop's work is dropped.
   */
  complete(turn: ScriptedTurn, response: HopResponse): boolean {
    turn.running = false;
    if (!this.holds(turn)) return false;
    turn.lastHop = response.hop;
    turn.lastResponse = response;
    turn.finished = !response.should_continue;
    if (turn.finished) this.#evictFinished();
    return true;
  }

  /** Forgets a turn whose hop failed: a failed turn never resumes (§7). */
  drop(turn: ScriptedTurn): void {
    turn.running = false;
    if (this.holds(turn)) this.#turns.delete(turn.requestId);
  }

  /**
   * Cancels a turn (DELETE): true when one was going on, running hop included; it is then marked cancelled, so a
   * hop still running drops its result and no later hop restarts it. An unknown turn is left unmarked and a
   * finished one keeps its replay (false). Idempotent.
   */
  cancel(requestId: string): boolean {
    const turn = this.#turns.get(requestId);
    if (turn === undefined || turn.finished) return false;
    this.#turns.delete(requestId);
    this.#cancelled.add(requestId);
    if (this.#cancelled.size > this.#keepCancelled) this.#cancelled.delete(this.#cancelled.values().next().value!);
    return true;
  }

  #evictFinished(): void {
    const finished = [...this.#turns.values()].filter((turn) => turn.finished);
    for (const turn of finished.slice(0, Math.max(0, finished.length - this.#keepFinished)))
      this.#turns.delete(turn.requestId);
  }
}
