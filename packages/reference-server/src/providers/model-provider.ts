import * as z from 'zod';
import { ATTACHMENT_MEDIA_TYPES, CallId } from '@canvas-ai/protocol';
import type { ToolDefinition } from '@canvas-ai/protocol/server';

// The conversation a provider is handed is the provider contract's: the stored turn (turn-state.ts) keeps it as it
// is, so what is stored follows the contract, never the reverse.

/** A tool call as the model sent it; parked until the next hop executes it (spec §2). */
export const StoredToolCall = z.object({ id: CallId, name: z.string(), arguments: z.string() });
export type StoredToolCall = z.infer<typeof StoredToolCall>;

/** An image attached to hop 1, kept in the turn so later (JSON-only) hops still show it to the model. */
export const StoredAttachment = z.object({
  name: z.string(),
  media_type: z.enum(ATTACHMENT_MEDIA_TYPES),
  /** The bytes, base64. */
  data: z.string(),
});
export type StoredAttachment = z.infer<typeof StoredAttachment>;

/**
 * One entry of the model's conversation, provider-neutral. `notice` is what the server tells the model on the
 * editor's behalf (the page, the person's edits, a rejected output); providers send it as a user message.
 */
export const ModelMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), text: z.string(), attachments: z.array(StoredAttachment).default([]) }),
  z.object({ role: z.literal('assistant'), text: z.string(), tool_calls: z.array(StoredToolCall) }),
  z.object({ role: z.literal('tool'), call_id: z.string(), name: z.string(), content: z.string() }),
  z.object({ role: z.literal('notice'), text: z.string() }),
]);
export type ModelMessage = z.infer<typeof ModelMessage>;

/**
 * One model decision to make (spec/hop-protocol.md §2, step 4): everything a provider needs, nothing it must remember.
 * It carries no abort signal on purpose: a decision runs to its end even when the client's connection is gone, so
 * the hop is stored and the client's retry gets it (see `decideOnce` in hop.ts). A provider bounds its own time.
 */
export interface ModelRequest {
  /** The agent running the turn. */
  agentId: string;
  /** The configured main agent (a scenario without `agent` belongs to it). */
  mainAgent: string;
  /** The agent's system prompt (agent prompt, catalog, docs): the same on every call; the page comes in `messages`. */
  system: string;
  /** The turn's conversation so far, oldest first, ending with this hop's tool results and notices. */
  messages: readonly ModelMessage[];
  /** The tools the agent may call. */
  tools: readonly ToolDefinition[];
  /** Where the turn stands. */
  turn: {
    /** The user's message that started the turn. */
    userMessage: string;
    /** Which decision of the turn this is, 1-based. */
    decision: number;
    /** Uuids of the components placed so far this turn, in placed-reference order. */
    placedUuids: readonly string[];
    /** The component selected in the editor in this hop's request, if any. */
    selectedComponent: string | null;
  };
  /**
   * Called with each piece of the model's narration as it arrives, in order; the pieces joined are `ModelReply.text`.
   * A provider that does not stream may call it once with the whole text, or never. The hop forwards the pieces to a
   * client that asked for a stream; it never changes what is stored.
   */
  onText?: ((delta: string) => void) | undefined;
}

/** Token counts of one model call as the provider reported them; 0 where it reported none. */
export interface ModelUsage {
  /** Prompt tokens, cached ones included. */
  input_tokens: number;
  /** Tokens the model wrote. */
  output_tokens: number;
  /** Prompt tokens the provider read from its prompt cache. */
  cached_input_tokens: number;
}

/** The model's decision: narration text and the tool calls to park. No tool call means the model is finished. */
export interface ModelReply {
  text: string;
  toolCalls: StoredToolCall[];
  /** What the call cost, when the provider reports it (the scripted provider does not). */
  usage?: ModelUsage | undefined;
}

/**
 * A model behind the hop: `scripted` (fixtures) or any OpenAI-compatible endpoint. Failures throw a
 * `HopError('provider_error', …)` whose message says what to check; anything else thrown becomes one too.
 */
export interface ModelProvider {
  /** Shown in logs and `GET /healthz`-style diagnostics. */
  readonly name: string;
  /**
   * The longest one decision may take, retries included, when the provider bounds it: `createApp` refuses to start
   * when it would outlast the turn lock (a hop that outlives its lock finds its turn taken over; spec §8).
   */
  readonly maxDecisionMs?: number;
  decide(request: ModelRequest): Promise<ModelReply>;
}
