import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { errorMessage } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import { redactUrl, redactUrlsIn } from '../redact.js';
import type { StoredToolCall } from './model-provider.js';
import { anthropicMessages, anthropicSystem, anthropicTools } from './anthropic-messages.js';
import type { ModelProvider, ModelReply, ModelRequest, ModelUsage } from './model-provider.js';
import { causeOf, firstLine, MODEL_UNAVAILABLE } from './provider-failure.js';

/** Where and how to reach Anthropic's Messages API. */
export interface AnthropicOptions {
  /** The model name, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** The API key. */
  apiKey: string;
  /** Base URL without `/v1`; absent means `https://api.anthropic.com`. */
  baseURL?: string;
  /** Milliseconds one try may take, from the request to the reply's last event. Default 120,000. */
  timeoutMs?: number;
  /** Retries of a failed try (connection errors, a stream cut before any text, 408/409/429/5xx). Default 1. */
  maxRetries?: number;
  /** The longest wait before a retry; a `retry-after` asking for more fails the decision instead. Default 10,000. */
  maxRetryWaitMs?: number;
  /** The most tokens one reply may have (the Messages API requires a bound). Default 8,192. */
  maxTokens?: number;
}

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * A real model through Anthropic's Messages API, streamed: narration reaches `onText` as it arrives, tool_use
 * blocks become the calls to park (one per reply: parallel tool use is off, the hop executes one decision at a
 * time anyway), and prompt-cache breakpoints on tools, system and the conversation's last block let each call of a
 * turn reuse the previous call's prefix. Retries are this class's own, not the library's, so that a `retry-after`
 * cannot stretch a decision past `maxDecisionMs`. Every failure becomes a 502 `provider_error` saying what to check.
 */
export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  /** Every try may take the timeout, and each retry waits at most `maxRetryWaitMs` before it. */
  readonly maxDecisionMs: number;
  readonly #client: Anthropic;
  readonly #options: AnthropicOptions;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #maxRetryWaitMs: number;

  constructor(options: AnthropicOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#retries = options.maxRetries ?? 1;
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 10_000;
    this.maxDecisionMs = this.#timeoutMs * (this.#retries + 1) + this.#maxRetryWaitMs * this.#retries;
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      // Given explicitly: the library would otherwise read ANTHROPIC_BASE_URL and other variables of its own.
      baseURL: options.baseURL ?? DEFAULT_BASE_URL,
      timeout: this.#timeoutMs,
      maxRetries: 0,
      // Failures reach the server's log through the HopError, redacted; the library would print upstream text.
      logLevel: 'off',
    });
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    const tools = anthropicTools(request.tools);
    const body: MessageCreateParamsStreaming = {
      model: this.#options.model,
      max_tokens: this.#options.maxTokens ?? 8_192,
      system: anthropicSystem(request.system),
      messages: anthropicMessages(request.messages),
      stream: true,
      ...(tools.length > 0 ? { tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true } } : {}),
    };
    for (let attempt = 0; ; attempt += 1) {
      const progress = { streamedText: false };
      try {
        return await this.#try(body, request, progress);
      } catch (error) {
        const wait = retryWaitMs(error, attempt);
        // Narration already forwarded cannot be taken back: a retry would show it twice.
        if (attempt >= this.#retries || progress.streamedText || wait === undefined || wait > this.#maxRetryWaitMs) {
          throw this.#providerError(error, wait);
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** One try: the request and its whole stream under one timer. */
  async #try(
    body: MessageCreateParamsStreaming,
    request: ModelRequest,
    progress: { streamedText: boolean },
  ): Promise<ModelReply> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new TimedOut()), this.#timeoutMs);
    const reply = new ReplyBuilder(request, progress);
    let streaming = false;
    try {
      const stream = await this.#client.messages.create(body, { signal: abort.signal });
      streaming = true;
      for await (const event of stream) reply.add(event);
    } catch (error) {
      if (abort.signal.aborted) throw new TimedOut();
      // Once the stream runs, a dropped connection or a garbled event surfaces as a plain error; an `error` event
      // of the API is an APIError and says what it is.
      if (streaming && !(error instanceof Anthropic.APIError)) {
        throw new StreamCut(`broke off mid-stream (${firstLine(errorMessage(error))})`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
    // The library ends the iteration quietly when the signal aborts mid-stream.
    if (abort.signal.aborted) throw new TimedOut();
    return reply.finish();
  }

  /**
   * A failed model call as the user sees it and as the log keeps it (spec §7), as the OpenAI-compatible provider
   * does: the user hears that the model is unavailable; the endpoint (credentials masked), its answer and what to
   * check go to the log only.
   */
  #providerError(error: unknown, retryWait: number | undefined): HopError {
    const where = redactUrl(this.#options.baseURL ?? DEFAULT_BASE_URL, 'the configured base URL');
    const unavailable = (detail: string) =>
      new HopError('provider_error', MODEL_UNAVAILABLE, {
        cause: error,
        detail: redactUrlsIn(`${detail}${causeOf(error)}`),
      });
    if (error instanceof TimedOut || error instanceof Anthropic.APIConnectionTimeoutError) {
      return unavailable(`The model at ${where} did not finish its reply within ${this.#timeoutMs} ms.`);
    }
    if (error instanceof StreamCut) return unavailable(`The reply from ${where} ${error.message}.`);
    if (error instanceof Anthropic.APIConnectionError) {
      return unavailable(
        `Could not reach the model at ${where}; check CANVAS_AI_ANTHROPIC_BASE_URL and that the server runs.`,
      );
    }
    if (error instanceof Anthropic.APIError) {
      const status = error.status ?? 'an error event mid-stream';
      const hint =
        error.status === 401 || error.status === 403
          ? ' Check CANVAS_AI_ANTHROPIC_API_KEY.'
          : error.status === 404
            ? ` Check CANVAS_AI_ANTHROPIC_MODEL ("${this.#options.model}") and the base URL.`
            : retryWait !== undefined && retryWait > this.#maxRetryWaitMs
              ? ` It asked to retry after ${Math.ceil(retryWait / 1000)} s, longer than the ${this.#maxRetryWaitMs} ms this server waits.`
              : '';
      return unavailable(`The model endpoint ${where} answered ${status}: ${firstLine(error.message)}.${hint}`);
    }
    return unavailable(`The model call to ${where} failed: ${firstLine(errorMessage(error))}`);
  }
}

/** The try's own timer ran out (the library's abort error says nothing about why). */
class TimedOut extends Error {
  override readonly name = 'TimedOut';
}

/** The stream ended or broke before `message_stop`. */
class StreamCut extends Error {
  override readonly name = 'StreamCut';
}

/**
 * How long to wait before retrying `error`, or undefined when it is not worth retrying: what the server asked for
 * (`retry-after-ms`, `retry-after` in seconds), else 0.5 s doubling per attempt up to 8 s.
 */
function retryWaitMs(error: unknown, attempt: number): number | undefined {
  const backoff = Math.min(500 * 2 ** attempt, 8_000);
  if (error instanceof TimedOut || error instanceof StreamCut || error instanceof Anthropic.APIConnectionError) {
    return backoff;
  }
  if (!(error instanceof Anthropic.APIError) || error instanceof Anthropic.APIUserAbortError) return undefined;
  // An `error` event mid-stream has no status; overloaded and internal errors are worth another try.
  const retryable =
    error.status === undefined
      ? ['overloaded_error', 'api_error'].includes(String(error.type))
      : [408, 409, 429].includes(error.status) || error.status >= 500;
  if (!retryable) return undefined;
  const asked = Number(error.headers?.get('retry-after-ms') ?? Number.NaN);
  if (asked >= 0) return asked;
  const seconds = Number(error.headers?.get('retry-after') ?? Number.NaN);
  return seconds >= 0 ? seconds * 1000 : backoff;
}

/** A streamed reply put together event by event; text deltas go to `onText` as they come. */
class ReplyBuilder {
  #text = '';
  readonly #calls: StoredToolCall[] = [];
  /** Tool-use blocks being streamed, by block index: their id, name and input JSON so far. */
  readonly #open = new Map<number, { id: string; name: string; json: string; input: unknown }>();
  #usage: ModelUsage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  /** The prompt counts as last reported: uncached, written to the cache, read from it. */
  #previousInput = { fresh: 0, written: 0, read: 0 };
  #stopped = false;

  constructor(
    private readonly request: ModelRequest,
    private readonly progress: { streamedText: boolean },
  ) {}

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.#countUsage(event.message.usage);
        return;
      case 'content_block_start':
        if (event.content_block.type === 'text') this.#narrate(event.content_block.text);
        else if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block;
          this.#open.set(event.index, { id, name, json: '', input });
        }
        return;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') this.#narrate(event.delta.text);
        else if (event.delta.type === 'input_json_delta') {
          const call = this.#open.get(event.index);
          if (call) call.json += event.delta.partial_json;
        }
        return;
      case 'content_block_stop': {
        const call = this.#open.get(event.index);
        if (!call) return;
        this.#open.delete(event.index);
        // Input streams as JSON text; a block without deltas carries its (empty) input whole. Broken JSON is kept
        // as it came: the hop answers it with a tool error the model can correct.
        const args = call.json === '' ? JSON.stringify(call.input ?? {}) : call.json;
        this.#calls.push({
          id: call.id || `call_${this.request.turn.decision}_${this.#calls.length + 1}`,
          name: call.name,
          arguments: args,
        });
        return;
      }
      case 'message_delta':
        this.#countUsage(event.usage);
        return;
      case 'message_stop':
        this.#stopped = true;
        return;
    }
  }

  finish(): ModelReply {
    if (!this.#stopped) throw new StreamCut('ended before its last event (message_stop)');
    return { text: this.#text, toolCalls: this.#calls, usage: this.#usage };
  }

  #narrate(delta: string): void {
    if (delta === '') return;
    this.#text += delta;
    this.progress.streamedText = true;
    this.request.onText?.(delta);
  }

  /**
   * Anthropic counts uncached, cache-written and cache-read prompt tokens apart; the contract's `input_tokens`
   * holds all three. `message_delta` repeats the counts cumulatively, so a later count replaces an earlier one.
   */
  #countUsage(usage: {
    input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
    output_tokens?: number | null;
  }): void {
    const previous = this.#previousInput;
    const fresh = usage.input_tokens ?? previous.fresh;
    const written = usage.cache_creation_input_tokens ?? previous.written;
    const read = usage.cache_read_input_tokens ?? previous.read;
    this.#previousInput = { fresh, written, read };
    this.#usage = {
      input_tokens: fresh + written + read,
      output_tokens: usage.output_tokens ?? this.#usage.output_tokens,
      cached_input_tokens: read,
    };
  }
}
