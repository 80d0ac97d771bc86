import { applyOutputsWithResults, type CanvasDocument } from '@canvas-ai/protocol';
import { HopResponse } from '@canvas-ai/protocol';
import { MAX_AGENT_HOPS, MAX_TURN_REQUESTS } from '@canvas-ai/protocol';
import type { ApplyResult } from '@canvas-ai/protocol';
import { describeAnswer, type ConformanceClient, type Exchange } from './http-client.js';
import { EMPTY_DOCUMENT, newRequestId, promptHop } from './requests.js';

/** A turn has at most `max_hops + 2` hops, `max_hops` at most {@link MAX_AGENT_HOPS} (spec §2, §13). */
const MAX_TURN_HOPS = MAX_TURN_REQUESTS;

/** One hop of the level-1 turn: sent, then sent again as a client that lost the response would. */
interface PromptTurnHop {
  hop: number;
  first: Exchange;
  repeat: Exchange;
  /** The first answer, when it is a valid 200 `HopResponse`. */
  response?: HopResponse;
}

/** The turn the server ran for the level-1 prompt. */
export interface PromptTurn {
  requestId: string;
  hops: PromptTurnHop[];
  /** Why the turn did not reach a final hop; absent when it did. */
  problem?: string;
}

/**
 * Plays whatever turn the server runs for `prompt` (main agent, empty page) as a well-behaved client: applies each
 * hop's outputs with the shared reducer, reports `apply_results`, and sends every hop twice, so the replay checks
 * can compare. Stops at the final hop, at the first answer that is not a valid 200, or after {@link MAX_TURN_HOPS}.
 */
export async function drivePromptTurn(client: ConformanceClient, prompt: string): Promise<PromptTurn> {
  const turn: PromptTurn = { requestId: newRequestId('prompt'), hops: [] };
  let document: CanvasDocument = EMPTY_DOCUMENT;
  let applyResults: ApplyResult[] | undefined;
  for (let hop = 1; hop <= MAX_TURN_HOPS; hop += 1) {
    const request = promptHop(turn.requestId, hop, prompt, document, applyResults);
    const first = await client.postHop(request);
    const repeat = await client.postHop(request);
    const driven: PromptTurnHop = { hop, first, repeat };
    turn.hops.push(driven);
    if (first.status !== 200) {
      turn.problem = `hop ${hop} answered ${describeAnswer(first)}`;
      return turn;
    }
    const parsed = HopResponse.safeParse(first.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      turn.problem = `hop ${hop} is not a HopResponse (${issue.path.join('.') || 'body'}: ${issue.message})`;
      return turn;
    }
    driven.response = parsed.data;
    if (!parsed.data.should_continue) return turn;
    const applied = applyOutputsWithResults(document, parsed.data.outputs);
    document = applied.document;
    applyResults = applied.results;
  }
  turn.problem = `the turn still went on after ${MAX_TURN_HOPS} hops (max_hops is at most ${MAX_AGENT_HOPS})`;
  await client.cancel(turn.requestId).catch(() => undefined);
  return turn;
}
