import type { StoredToolCall } from './model-provider.js';
import type { WireObject } from './chat-request.js';
import type { ModelReply, ModelUsage } from './model-provider.js';

/** A reply the endpoint sent that cannot become a decision; its message is for the log (what to check). */
export class ReplyError extends Error {
  override readonly name = 'ReplyError';
}

/**
 * The `data` of each server-sent event of a response body, in order (`[DONE]` included). Lines are split as the
 * bytes arrive, each byte looked at once; `: comments` and other fields are skipped. Throws when the body passes
 * `maxBytes` (an endpoint that never stops is a fault, not a reply).
 */
export async function* sseData(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let bytes = 0;
  let pending = '';
  let data: string[] = [];
  const line = (text: string): string | undefined => {
    const clean = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (clean === '') {
      const event = data.length > 0 ? data.join('\n') : undefined;
      data = [];
      return event;
    }
    if (clean.startsWith('data:')) data.push(clean.slice(clean.startsWith('data: ') ? 6 : 5));
    return undefined;
  };
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw new ReplyError(`The model's reply passed ${maxBytes} bytes; it was stopped there.`);
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const event = line(pending + text.slice(start, end));
      pending = '';
      start = end + 1;
      if (event !== undefined) yield event;
    }
    pending += text.slice(start);
  }
  const last = line(pending + decoder.decode());
  const event = last ?? line('');
  if (event !== undefined) yield event;
}

/** One tool call being assembled from stream deltas. */
interface CallParts {
  id: string;
  name: string;
  /** Argument text as streamed, in pieces (joined once at the end). */
  pieces: string[];
}

/**
 * Builds one model decision from Chat Completions chunks (or from one whole completion, for an endpoint that does
 * not stream), forwarding narration as it comes. It takes the shapes real servers send, each named in the server's
 * README (fault and quirk table): tool-call deltas without `index` or without ids, arguments as a JSON object,
 * reasoning beside the text (never narrated), usage in the last chunk or nowhere.
 */
export class ReplyAssembler {
  #text: string[] = [];
  readonly #calls: CallParts[] = [];
  readonly #byIndex = new Map<number, CallParts>();
  readonly #byId = new Map<string, CallParts>();
  #usage: ModelUsage | undefined;
  #finishReason: string | undefined;
  #done = false;
  /** Whether any narration or tool call has arrived (a fault after it is not retried: the person saw some). */
  started = false;

  constructor(private readonly onText: ((delta: string) => void) | undefined) {}

  /** One streamed chunk (a parsed `data` event). */
  addChunk(chunk: WireObject): void {
    this.#error(chunk);
    this.#readUsage(chunk.usage);
    const choice = firstChoice(chunk);
    if (!choice) return;
    const delta = (
      isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : {}
    ) as WireObject;
    this.#addText(delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.#addCallDelta(call);
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
  }

  /** A whole, non-streamed completion (an endpoint that answered JSON to `stream: true`). */
  addCompletion(completion: WireObject): void {
    this.addChunk(completion);
    this.#done = true;
  }

  /** The stream's `[DONE]`. */
  end(): void {
    this.#done = true;
  }

  /** The decision, or a {@link ReplyError} when the stream stopped short of one. */
  reply(decision: number): ModelReply {
    if (!this.#done && this.#finishReason === undefined) {
      throw new ReplyError('The model stream ended before the model finished (no finish_reason, no [DONE]).');
    }
    if (this.#finishReason === 'length' && this.#calls.length > 0) {
      throw new ReplyError(
        'The model ran out of output tokens in the middle of a tool call (finish_reason "length"); raise the ' +
          "endpoint's output limit (max tokens, or Ollama's num_ctx) for this model.",
      );
    }
    const toolCalls: StoredToolCall[] = this.#calls.map((call, index) => ({
      // Some servers send no call ids; the hop needs one per call to link outputs and apply results.
      id: call.id || `call_${decision}_${index + 1}`,
      name: call.name,
      arguments: call.pieces.join(''),
    }));
    return { text: this.#text.join(''), toolCalls, ...(this.#usage ? { usage: this.#usage } : {}) };
  }

  #error(chunk: WireObject): void {
    if (chunk.error === undefined || chunk.error === null) return;
    const error = chunk.error;
    const message = isObject(error) && typeof error.message === 'string' ? error.message : JSON.stringify(error);
    throw new ReplyError(`The model endpoint sent an error in its stream: ${message.split('\n')[0]!.slice(0, 300)}`);
  }

  #addText(content: unknown): void {
    if (typeof content !== 'string' || content === '') return;
    this.started = true;
    this.#text.push(content);
    this.onText?.(content);
  }

  #readUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
    this.#usage = {
      input_tokens: count(usage.prompt_tokens),
      output_tokens: count(usage.completion_tokens),
      cached_input_tokens: count(details.cached_tokens),
    };
  }

  /**
   * One tool-call delta. With an `index` it extends the call of that index; without one (Gemini's endpoint), a new
   * id, or a name when the last call has its name and arguments already, starts a call, and anything else extends
   * the last one.
   */
  #addCallDelta(delta: unknown): void {
    if (!isObject(delta)) return;
    const fn = (isObject(delta.function) ? delta.function : {}) as WireObject;
    const id = typeof delta.id === 'string' ? delta.id : '';
    const name = typeof fn.name === 'string' ? fn.name : '';
    const last = this.#calls.at(-1);
    let call: CallParts | undefined;
    if (typeof delta.index === 'number') call = this.#byIndex.get(delta.index);
    else if (id !== '') call = this.#byId.get(id);
    else if (last && !(name !== '' && last.name !== '' && last.pieces.length > 0)) call = last;
    if (!call) {
      call = { id: '', name: '', pieces: [] };
      this.#calls.push(call);
      if (typeof delta.index === 'number') this.#byIndex.set(delta.index, call);
    }
    this.started = true;
    if (call.id === '' && id !== '') {
      call.id = id;
      this.#byId.set(id, call);
    }
    if (name !== '' && name !== call.name) call.name += name;
    const args = fn.arguments;
    if (typeof args === 'string') call.pieces.push(args);
    // Ollama's native shape: the arguments as an object, whole.
    else if (isObject(args)) call.pieces = [JSON.stringify(args)];
  }
}

function firstChoice(chunk: WireObject): WireObject | undefined {
  const choices = chunk.choices;
  return Array.isArray(choices) && isObject(choices[0]) ? choices[0] : undefined;
}

function isObject(value: unknown): value is WireObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
