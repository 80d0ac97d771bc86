import { errorMessage } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import { redactUrl, redactUrlsIn } from '../redact.js';
import { chatRequestBody, type OptionalField, type WireObject } from './chat-request.js';
import { ReplyAssembler, ReplyError, sseData } from './chat-stream.js';
import type { ModelProvider, ModelReply, ModelRequest } from './model-provider.js';
import { causeOf, firstLine, MODEL_UNAVAILABLE as UNAVAILABLE } from './provider-failure.js';

/** Where and how to reach an OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio …). */
export interface OpenAiCompatibleOptions {
  /** The model name the endpoint knows, e.g. `gpt-4o-mini` or `llama3.1`. */
  model: string;
  /** Base URL ending in `/v1`; absent means OpenAI's own. */
  baseURL?: string | undefined;
  /** The API key; local servers usually accept any. */
  apiKey: string;
  /**
   * Milliseconds one try may take, from sending the request to the stream's last chunk, before the hop fails with
   * 502 `provider_error`. Default 120,000.
   */
  timeoutMs?: number | undefined;
  /** Tries after a refused one (429, 408, 409, 5xx, no connection), within the decision's time. Default 1. */
  maxRetries?: number | undefined;
  /** The longest wait before a retry; a `Retry-After` asking more fails the decision instead. Default 8,000. */
  maxRetryWaitMs?: number | undefined;
  /** A sampling temperature to send; absent leaves the endpoint's default. */
  temperature?: number | undefined;
}

/** Bytes one streamed reply may take (a model's answer is a few kilobytes; the stream's framing adds some). */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
/** Bytes of an error answer read for the log (an error page may be large; its first line is what matters). */
const MAX_ERROR_BYTES = 64 * 1024;
/** The first wait before retrying a refused try without `Retry-After`; it doubles, up to `maxRetryWaitMs`. */
const FIRST_BACKOFF_MS = 500;

/**
 * A real model through any OpenAI-compatible Chat Completions endpoint, streamed: narration goes to `onText` as it
 * arrives, tool calls are assembled from their deltas, usage comes from the last chunk. Tools become function
 * definitions made from their zod schemas, tool results go back as `tool` messages, attachments as `image_url` data
 * URLs on the user message. Every failure becomes a 502 `provider_error` whose log detail says what to check; the
 * server README's fault table says which are retried.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name = 'openai';
  /** Every try may take the timeout, and every retry waits at most `maxRetryWaitMs` before it. */
  readonly maxDecisionMs: number;
  readonly #options: OpenAiCompatibleOptions;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #maxWaitMs: number;
  /** Request fields this endpoint refused as unknown (Mistral's refuses `stream_options`): not sent again. */
  readonly #omit = new Set<OptionalField>();

  constructor(options: OpenAiCompatibleOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#retries = options.maxRetries ?? 1;
    this.#maxWaitMs = options.maxRetryWaitMs ?? 8_000;
    this.maxDecisionMs = this.#timeoutMs * (this.#retries + 1) + this.#maxWaitMs * this.#retries;
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    // One deadline for the whole decision, so `maxDecisionMs` holds whatever the tries and waits were.
    const deadline = Date.now() + this.maxDecisionMs;
    let retries = 0;
    for (let tries = 1; ; tries += 1) {
      // The first try has the whole timeout (the deadline was made from it): its failure names the configured figure,
      // not one a millisecond of set-up took off.
      const budget = tries === 1 ? this.#timeoutMs : Math.min(this.#timeoutMs, deadline - Date.now());
      const outcome = await this.#try(request, budget);
      if (!('failure' in outcome)) return outcome.reply;
      const { failure } = outcome;
      const after = tries > 1 ? ` (after ${tries} tries)` : '';
      if (failure.resendWithout) {
        this.#omit.add(failure.resendWithout);
        continue;
      }
      const wait = failure.retryAfterMs ?? FIRST_BACKOFF_MS * 2 ** retries;
      if (!failure.retryable || retries >= this.#retries) throw this.#error(`${failure.detail}${after}`, failure.cause);
      if (wait > this.#maxWaitMs || Date.now() + wait >= deadline) {
        throw this.#error(
          `${failure.detail} It asked to wait ${Math.ceil(wait / 1000)} s, more than this decision may wait ` +
            `(${this.#maxWaitMs} ms; the turn lock bounds it)${after}.`,
          failure.cause,
        );
      }
      retries += 1;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** One request and its whole streamed answer, within `budgetMs`. */
  async #try(request: ModelRequest, budgetMs: number): Promise<{ reply: ModelReply } | { failure: Failure }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, budgetMs);
    const assembler = new ReplyAssembler(request.onText);
    let response: Response | undefined;
    try {
      const body = chatRequestBody(request, {
        model: this.#options.model,
        temperature: this.#options.temperature,
        omit: this.#omit,
      });
      response = await fetch(this.#url(), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.#options.apiKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
        },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (!response.ok) return { failure: await this.#refused(response) };
      await this.#read(response, assembler);
      return { reply: assembler.reply(request.turn.decision) };
    } catch (error) {
      if (timedOut) {
        const what = assembler.started ? 'did not finish its answer' : 'did not answer';
        return { failure: { detail: `The model at ${this.#where()} ${what} within ${budgetMs} ms.`, cause: error } };
      }
      if (error instanceof ReplyError) return { failure: { detail: error.message, cause: error } };
      if (response) {
        return {
          failure: {
            detail: `The model stream broke off: ${firstLine(errorMessage(error))}${causeOf(error)}`,
            cause: error,
          },
        };
      }
      return {
        failure: {
          detail:
            `Could not reach the model at ${this.#where()}; check CANVAS_AI_OPENAI_BASE_URL and that the server ` +
            `runs.${causeOf(error)}`,
          cause: error,
          retryable: true,
        },
      };
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  /** Reads an answer: server-sent events, or one JSON completion from an endpoint that does not stream. */
  async #read(response: Response, assembler: ReplyAssembler): Promise<void> {
    if (!response.body) throw new ReplyError('The model endpoint answered with no body.');
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      assembler.addCompletion(parseJson(await readLimited(response, MAX_REPLY_BYTES)));
      return;
    }
    for await (const data of sseData(response.body, MAX_REPLY_BYTES)) {
      if (data.trim() === '[DONE]') {
        assembler.end();
        return;
      }
      assembler.addChunk(parseJson(data));
    }
  }

  /** An HTTP error answer: whether to retry it, and what the log says. */
  async #refused(response: Response): Promise<Failure> {
    const text = await readLimited(response, MAX_ERROR_BYTES).catch(() => '');
    const message = upstreamMessage(text);
    const status = response.status;
    if (status === 400 || status === 422) {
      // Mistral's refusal names the field in `loc`, deep in its body: the whole (bounded) text is searched.
      const field = (['stream_options', 'parallel_tool_calls'] as const).find((name) => text.includes(name));
      if (field && !this.#omit.has(field)) return { detail: message, resendWithout: field };
    }
    const hint =
      status === 401 || status === 403
        ? ' Check CANVAS_AI_OPENAI_API_KEY.'
        : status === 404
          ? ` Check CANVAS_AI_OPENAI_MODEL ("${this.#options.model}") and the base URL.`
          : '';
    return {
      detail: `The model endpoint ${this.#where()} answered ${status}: ${message}.${hint}`,
      retryable: status === 408 || status === 409 || status === 429 || status >= 500,
      retryAfterMs: retryAfterMs(response.headers),
    };
  }

  #url(): string {
    const url = new URL(this.#options.baseURL ?? 'https://api.openai.com/v1');
    url.pathname = `${url.pathname.replace(/\/$/, '')}/chat/completions`;
    return url.toString();
  }

  /** The endpoint as the log may show it (password and key-like parameters masked). */
  #where(): string {
    return redactUrl(this.#options.baseURL ?? 'https://api.openai.com/v1', 'the configured base URL');
  }

  /**
   * A failed decision as the user sees it and as the log keeps it (spec §7): the user hears that the model is
   * unavailable (the code says which failure it is); the endpoint, what it answered and what to check go to the log
   * only. Upstream text is never shown to the user: it may hold the endpoint's URL, and markdown made to look like
   * the page's own.
   */
  #error(detail: string, cause: unknown): HopError {
    return new HopError('provider_error', UNAVAILABLE, { cause, detail: redactUrlsIn(detail) });
  }
}

/** Why one try failed. */
interface Failure {
  /** For the log: what failed and what to check. */
  detail: string;
  cause?: unknown;
  /** Whether another try may succeed (nothing of this one reached the person). */
  retryable?: boolean;
  /** The wait the endpoint asked for (`Retry-After`). */
  retryAfterMs?: number | undefined;
  /** The endpoint refused this field as unknown: send the request again without it. */
  resendWithout?: OptionalField;
}

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in milliseconds. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The first line of an error body's message (`{ error: { message } }`, `{ message }`, `{ detail }` or text). */
function upstreamMessage(text: string): string {
  let message = text;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const candidate =
      typeof body.error === 'object' ? body.error?.message : (body.error ?? body.message ?? body.detail);
    if (typeof candidate === 'string') message = candidate;
    else if (candidate !== undefined) message = JSON.stringify(candidate);
  } catch {
    // not JSON: the text itself
  }
  return firstLine(message) || '(no message)';
}

/** A body's text, up to `maxBytes` (the rest is not read). */
async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (let read = await reader.read(); !read.done && bytes < maxBytes; read = await reader.read()) {
    bytes += read.value.byteLength;
    text += decoder.decode(read.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

function parseJson(text: string): WireObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ReplyError(`The model endpoint sent a chunk that is not JSON: ${firstLine(text).slice(0, 80)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ReplyError('The model endpoint sent a chunk that is not a JSON object.');
  }
  return value as WireObject;
}
