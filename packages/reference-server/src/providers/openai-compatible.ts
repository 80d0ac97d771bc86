import OpenAI from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { errorMessage } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import { redactUrl, redactUrlsIn } from '../redact.js';
import type { ModelMessage, StoredToolCall } from '../turn-state.js';
import type { ModelProvider, ModelReply, ModelRequest } from './model-provider.js';
import { causeOf, firstLine, MODEL_UNAVAILABLE as UNAVAILABLE } from './provider-failure.js';
import { toolParameters } from './tool-schemas.js';

/** Where and how to reach an OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio …). */
export interface OpenAiCompatibleOptions {
  /** The model name the endpoint knows, e.g. `gpt-4o-mini` or `llama3.1`. */
  model: string;
  /** Base URL ending in `/v1`; absent means OpenAI's own. */
  baseURL?: string;
  /** The API key; local servers usually accept any. */
  apiKey: string;
  /** Milliseconds one model call may take before the hop fails with 502 `provider_error`. Default 120,000. */
  timeoutMs?: number;
  /** Retries of a failed call (connection errors, 408/409/429/5xx), as the client library does them. Default 1. */
  maxRetries?: number;
  /** A sampling temperature to send; absent leaves the endpoint's default. */
  temperature?: number;
}

/**
 * A real model through any OpenAI-compatible Chat Completions endpoint, with tool calling: tools become function
 * definitions made from their zod schemas, tool results go back as `tool` messages, attachments as `image_url` data
 * URLs on the user message. Every failure becomes a 502 `provider_error` saying what to check.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name = 'openai';
  /** Every try may take the timeout; the client library waits up to 8 s before each retry. */
  readonly maxDecisionMs: number;
  readonly #client: OpenAI;
  readonly #options: OpenAiCompatibleOptions;

  constructor(options: OpenAiCompatibleOptions) {
    this.#options = options;
    const retries = options.maxRetries ?? 1;
    this.maxDecisionMs = (options.timeoutMs ?? 120_000) * (retries + 1) + 8_000 * retries;
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 1,
    });
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    const tools: ChatCompletionTool[] = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: toolParameters(tool) },
    }));
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.#client.chat.completions.create({
        model: this.#options.model,
        messages: [{ role: 'system', content: request.system }, ...request.messages.map(toChatMessage)],
        ...(tools.length > 0 ? { tools } : {}),
        ...(this.#options.temperature !== undefined ? { temperature: this.#options.temperature } : {}),
      });
    } catch (error) {
      throw this.#providerError(error);
    }
    const message = completion.choices?.[0]?.message;
    if (!message) {
      throw new HopError('provider_error', UNAVAILABLE, {
        detail: `The model endpoint answered without a choice; check that "${this.#options.model}" is a chat model.`,
      });
    }
    const toolCalls: StoredToolCall[] = [];
    for (const [index, call] of (message.tool_calls ?? []).entries()) {
      if (call.type !== 'function') continue;
      // Some local servers omit call ids; the hop needs one per call to link outputs and apply results.
      toolCalls.push({
        id: call.id || `call_${request.turn.decision}_${index + 1}`,
        name: call.function.name,
        arguments: call.function.arguments ?? '',
      });
    }
    return { text: message.content ?? '', toolCalls };
  }

  /**
   * A failed model call as the user sees it and as the log keeps it (spec §7): the user hears that the model is
   * unavailable (the code says which failure it is); the endpoint (its password and key-like parameters masked),
   * what it answered and what to check go to the log only. Upstream text is never shown to the user: it may hold
   * the endpoint's URL, and markdown made to look like the page's own.
   */
  #providerError(error: unknown): HopError {
    const where = redactUrl(this.#options.baseURL ?? 'https://api.openai.com/v1', 'the configured base URL');
    const unavailable = (detail: string) =>
      new HopError('provider_error', UNAVAILABLE, { cause: error, detail: redactUrlsIn(`${detail}${causeOf(error)}`) });
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return unavailable(`The model at ${where} did not answer within ${this.#options.timeoutMs ?? 120_000} ms.`);
    }
    if (error instanceof OpenAI.APIUserAbortError) return unavailable('The model call was aborted.');
    if (error instanceof OpenAI.APIConnectionError) {
      return unavailable(
        `Could not reach the model at ${where}; check CANVAS_AI_OPENAI_BASE_URL and that the server runs.`,
      );
    }
    if (error instanceof OpenAI.APIError) {
      const hint =
        error.status === 401 || error.status === 403
          ? ' Check CANVAS_AI_OPENAI_API_KEY.'
          : error.status === 404
            ? ` Check CANVAS_AI_OPENAI_MODEL ("${this.#options.model}") and the base URL.`
            : '';
      return unavailable(
        `The model endpoint ${where} answered ${error.status ?? 'an error'}: ${firstLine(error.message)}.${hint}`,
      );
    }
    return unavailable(`The model call to ${where} failed: ${firstLine(errorMessage(error))}`);
  }
}

/** One provider-neutral message in the Chat Completions wire format. */
function toChatMessage(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user': {
      if (message.attachments.length === 0) return { role: 'user', content: message.text };
      const content: ChatCompletionContentPart[] = [{ type: 'text', text: message.text }];
      for (const attachment of message.attachments) {
        content.push({
          type: 'image_url',
          image_url: { url: `data:${attachment.media_type};base64,${attachment.data}` },
        });
      }
      return { role: 'user', content };
    }
    case 'assistant':
      return {
        role: 'assistant',
        content: message.text || null,
        ...(message.tool_calls.length > 0
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.call_id, content: message.content };
    case 'notice':
      return { role: 'user', content: `[Editor notice] ${message.text}` };
  }
}
