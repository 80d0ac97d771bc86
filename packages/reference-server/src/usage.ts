import type { HopUsage, TokenCounts } from '@canvas-ai/protocol';
import type { ModelUsage } from './providers/model-provider.js';

/** No tokens: the hop counts of a hop that made no model call (spec §6.2). */
const NO_TOKENS: TokenCounts = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };

/**
 * The `usage` of a hop's response (spec §6.2): its model call's counts (0 without one) and the turn's so far. Absent
 * while no model call of the turn has reported usage, so a model that reports nothing adds nothing to the wire.
 */
export function hopUsage(turnSoFar: TokenCounts | undefined, reported: ModelUsage | undefined): HopUsage | undefined {
  if (!turnSoFar && !reported) return undefined;
  const hop = reported ? wireCounts(reported) : NO_TOKENS;
  const before = turnSoFar ?? NO_TOKENS;
  return {
    hop,
    turn: {
      input_tokens: before.input_tokens + hop.input_tokens,
      output_tokens: before.output_tokens + hop.output_tokens,
      cached_input_tokens: before.cached_input_tokens + hop.cached_input_tokens,
    },
  };
}

/**
 * A provider's counts as the wire allows them: whole numbers ≥ 0, the cached ones within the input (which counts
 * them), so a provider that reports oddly never makes the response one the client must refuse.
 */
function wireCounts(usage: ModelUsage): TokenCounts {
  const input = count(usage.input_tokens);
  return {
    input_tokens: input,
    output_tokens: count(usage.output_tokens),
    cached_input_tokens: Math.min(count(usage.cached_input_tokens), input),
  };
}

function count(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
