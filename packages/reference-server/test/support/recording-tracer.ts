// A minimal OpenTelemetry SDK for tests, written against @opentelemetry/api alone: a tracer that keeps every span it
// starts, and a context manager on AsyncLocalStorage (what an SDK's Node set-up registers), so a span started inside
// another's callback is its child across awaits.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  trace,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** A span as the test reads it. */
export class RecordedSpan implements Span {
  readonly attributes: Record<string, AttributeValue> = {};
  status: SpanStatus = { code: 0 };
  ended = false;
  readonly #context: SpanContext;

  constructor(
    public name: string,
    readonly kind: SpanKind | undefined,
    /** The span id of the parent (remote or local), if the span has one. */
    readonly parentSpanId: string | undefined,
    traceId: string,
    attributes: Attributes | undefined,
  ) {
    this.#context = { traceId, spanId: randomBytes(8).toString('hex'), traceFlags: 1 };
    if (attributes) this.setAttributes(attributes);
  }

  get traceId(): string {
    return this.#context.traceId;
  }
  get spanId(): string {
    return this.#context.spanId;
  }
  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.attributes[key] = value;
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    this.ended = true;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

/** A tracer that records every span; a span's parent is the span of the context it is started in. */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: SpanOptions = {}, parentContext: Context = context.active()): RecordedSpan {
    const parent = options.root ? undefined : trace.getSpanContext(parentContext);
    const span = new RecordedSpan(
      name,
      options.kind,
      parent?.spanId,
      parent?.traceId ?? randomBytes(16).toString('hex'),
      options.attributes,
    );
    this.spans.push(span);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, parentContext] = rest as [SpanOptions | undefined, Context | undefined];
    const parent = parentContext ?? context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}

/** The active context in AsyncLocalStorage. */
class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(active, () => fn.call(thisArg, ...args));
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

/** Registers a recording tracer and the context manager as the process's SDK; `off()` unregisters both. */
export function registerRecordingTracer(): { tracer: RecordingTracer; off(): void } {
  const tracer = new RecordingTracer();
  const provider: TracerProvider = { getTracer: () => tracer };
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncContextManager());
  return {
    tracer,
    off() {
      trace.disable();
      context.disable();
    },
  };
}
