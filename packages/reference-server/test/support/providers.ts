import type { ModelProvider, ModelReply, ModelRequest } from '../../src/providers/model-provider.js';

/** A model request as recorded: tools by name. */
export type RecordedRequest = Omit<ModelRequest, 'tools' | 'signal'> & { tools: string[] };

/**
 * Wraps a real provider to see what the model was sent, and optionally to hold a decision until the test releases
 * it (to have a hop "still running"). It changes no reply.
 */
export class RecordingProvider implements ModelProvider {
  readonly name = 'recording';
  readonly requests: RecordedRequest[] = [];
  #held: { entered: () => void; released: Promise<void> } | undefined;

  constructor(private readonly inner: ModelProvider) {}

  /** The next decision waits for `release()`; `entered` resolves when it has started. */
  holdNext(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#held = { entered, released };
    return { entered: enteredPromise, release };
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    const { tools, onText: _onText, ...rest } = request;
    this.requests.push(structuredClone({ ...rest, tools: tools.map((tool) => tool.name) }));
    const held = this.#held;
    this.#held = undefined;
    if (held) {
      held.entered();
      await held.released;
    }
    return this.inner.decide(request);
  }
}

/** A model that answers from a list, in order; an Error in the list is thrown instead (a failing model). */
export class ListProvider implements ModelProvider {
  readonly name = 'list';
  #next = 0;

  constructor(private readonly replies: Array<ModelReply | Error>) {}

  async decide(): Promise<ModelReply> {
    const reply = this.replies[this.#next++];
    if (reply === undefined) throw new Error('the test model has no more replies');
    if (reply instanceof Error) throw reply;
    return reply;
  }
}
