import { finalNarration, joinNarration, maxHopsMessage } from '../narration/narration.js';
import type { AgentRef, ContinuingHopResponse, FinalHopResponse, HopUsage } from '../wire/hop-response.js';
import { PROTOCOL_VERSION } from '../wire/ids.js';
import type { ToolOutput } from '../wire/outputs.js';

/** What every 200 hop response of one hop carries besides the narration (spec/hop-protocol.md §6). */
export interface HopResponseHead {
  requestId: string;
  hop: number;
  agent: AgentRef;
  /** The outputs of the calls executed in this hop, in call order. */
  outputs: ToolOutput[];
  /** What the hop's model call and the turn so far cost, when the model reported it (spec §6.2). */
  usage?: HopUsage | undefined;
}

function head(of: HopResponseHead): Omit<ContinuingHopResponse, 'should_continue' | 'progress'> {
  return {
    status: true,
    protocol: PROTOCOL_VERSION,
    request_id: of.requestId,
    hop: of.hop,
    agent: of.agent,
    outputs: of.outputs,
    // Absent, not undefined, when the model reported nothing: a stored response and its replay keep the same keys.
    ...(of.usage ? { usage: of.usage } : {}),
  };
}

/** A hop whose model decision parked tool calls: the turn goes on, `progress` is every text so far (spec §9). */
export function continuingResponse(of: HopResponseHead, texts: readonly string[]): ContinuingHopResponse {
  return { ...head(of), should_continue: true, progress: joinNarration(texts) };
}

/** A hop whose model decision made no tool call: its text is the answer, stripped off the end of `progress` (spec §9). */
export function answerResponse(of: HopResponseHead, texts: readonly string[]): FinalHopResponse {
  return { ...head(of), should_continue: false, ...finalNarration(texts), finish_reason: 'answer' };
}

/** The hop after the agent's last allowed decision: no answer exists, so the fixed `max_hops` message (spec §9). */
export function maxHopsResponse(of: HopResponseHead, texts: readonly string[], maxHops: number): FinalHopResponse {
  return {
    ...head(of),
    should_continue: false,
    progress: joinNarration(texts),
    message: maxHopsMessage(maxHops),
    finish_reason: 'max_hops',
  };
}
