import type { AgentDefinition, CanvasDocument, HopRequest, ToolOutput, Waiting } from '@canvas-ai/protocol';
import type { DocumentDigest, PropsPrints, ToolDefinition } from '@canvas-ai/protocol/server';
import type { HopEvents } from './hop-events.js';
import type { ServerDeps } from './server-deps.js';
import type { TurnKey } from './store/keys.js';
import type { TurnLock } from './store/turn-store.js';
import type { ModelMessage } from './providers/model-provider.js';
import type { PageTold, TurnSoFar } from './turn-state.js';

/** One admitted hop: the request, the turn it continues (seeded on hop 1), and where that turn is stored. */
export interface HopRun {
  deps: ServerDeps;
  key: TurnKey;
  /** The turn's lock, held for the whole hop: every save is fenced by it (spec §8). */
  lock: TurnLock;
  request: HopRequest;
  agentId: string;
  agent: AgentDefinition;
  turn: TurnSoFar;
  /** The outputs of the turn's previous response (none on hop 1): what this request's `apply_results` report on. */
  previousOutputs: readonly ToolOutput[];
  /** This hop's props cache: the fingerprints hash and the prompt stringifies each props object once. */
  prints: PropsPrints;
  /** The fingerprint of the request's page, when the door built it in the walk that validated its layout. */
  requestDigest?: DocumentDigest | undefined;
  /** The tools the model is offered this turn: the agent's, less those whose output the client did not declare. */
  tools: Record<string, ToolDefinition>;
  /** Where the outputs and the model's text go before the response, for a streamed answer (spec §6.1). */
  events: HopEvents;
  /** The proposed outputs the person approved, sent with this hop (spec §20.5). */
  approved?: readonly ToolOutput[] | undefined;
}

/** What running the parked calls left for the decision: the conversation so far and this hop's outputs. */
export interface ParkedCallsStep {
  messages: ModelMessage[];
  outputs: ToolOutput[];
  /** The request's document with this hop's outputs applied: what the next request should carry. */
  document: CanvasDocument;
  placedUuids: string[];
  executed: Array<{ name: string; ok: boolean }>;
  /** What the model knows of the selection and host data once this hop's page notice is appended. */
  told?: PageTold | undefined;
  /** What the turn waits for when a call of this hop asked the person (spec §20.1): then no decision is made. */
  waiting?: Waiting | undefined;
  /** The outputs held back as a proposal, with their calls' results (spec §20.5). */
  proposal?: Array<{ output: ToolOutput; result: string }> | undefined;
}
