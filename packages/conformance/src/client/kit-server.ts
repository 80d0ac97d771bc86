import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentsResponse,
  type ApplyResult,
  applyOutputsWithResults,
  type CancelResponse,
  CSRF_HEADER,
  encodeStreamLine,
  type CanvasDocument,
  HopRequest,
  type HopResponse,
  NDJSON_MEDIA_TYPE,
  PROTOCOL_VERSION,
  REQUIRED_OUTPUT_TYPES,
  type TokenResponse,
  type ToolOutput,
  type Waiting,
} from '@canvas-ai/protocol';
import { answerProblems, sniffImageType } from '@canvas-ai/protocol/server';
import { type ClientScenario, type HopStep, type KitFault, type KitWait, MARKUP_ERROR } from './client-scenarios.js';
import { askedForStream } from './recorded-hops.js';

/** The agents the kit's server offers: a main agent and one tool a client may pick. */
export const KIT_AGENTS: AgentsResponse = {
  main_agent: { id: 'kit_main', label: 'Kit main agent', description: 'Answers when nothing is picked.' },
  tools: [{ id: 'kit_tool', label: 'Kit tool agent', description: 'The agent a client picks.' }],
};

/** One request the client under test made, as the kit received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The CSRF token the kit issued in answer, for a `GET /api/token`. */
  issuedToken?: string;
  /** The parsed JSON body of a hop, or of a multipart hop's `request` field (undefined when it was neither). */
  body: unknown;
  /**
   * A multipart hop's files (name, declared type, size, and the image type its first bytes say, spec §4.3), in order;
   * absent for a JSON body.
   */
  attachments?: Array<{ name: string; type: string; size: number; image: string | undefined }>;
  /** `HopRequest.safeParse` of the body, for a `POST /api/hop`. */
  hop?: ReturnType<typeof HopRequest.safeParse>;
  /** Milliseconds since the scenario started, when the request arrived and when its answer was finished. */
  startedAt: number;
  endedAt: number;
  /** What the kit answered: an HTTP status, and a fault's name when it played one. */
  status: number;
  fault?: KitFault;
}

/** What the kit expects the hop after hop N to carry: hop N's document with its outputs applied, and their results. */
interface ExpectedNext {
  document: CanvasDocument;
  results: ApplyResult[];
}

/** What the kit saw while one scenario ran: every request, and the session it issued. */
export interface ScenarioRecording {
  scenario: ClientScenario;
  requests: RecordedRequest[];
  /** By hop number: what the next hop should carry, as the shared reducer applies that hop's outputs. */
  expectedAfter: Map<number, ExpectedNext>;
  /** The session cookie (`name=value`) the kit issued, once the client asked for a token (each token: `issuedToken`). */
  cookie?: string;
  /** When the kit asked the client to stop (ms since the start), in a scenario that does. */
  stopAskedAt?: number;
  /** The kinds of wait hop 1 declared in `capabilities.waits` (spec §20.1), once it arrived. */
  declaredWaits?: string[];
  /**
   * The page the adapter wrote to `{out}` when its turn had ended (spec/conformance.md §7): its JSON, or why it could
   * not be read; absent when the adapter wrote none.
   */
  written?: { document: unknown } | { problem: string };
  /** What the adapter wrote to `{shown}`: the text its client showed the person, or why it could not be read. */
  shown?: { text: string } | { problem: string };
  /** The output types beyond the v1 three hop 1 declared in `capabilities.outputs` (spec §5.1), once it arrived. */
  declaredOutputs?: string[];
  /** By hop number: what the turn waited for after that hop, as the kit's response said (spec §20.1). */
  waits: Map<number, Waiting>;
  /** The waits the script asks for that the kit did not offer, as hop 1 did not declare their kind. */
  notOffered: Array<{ hop: number; kind: string }>;
}

const SESSION_COOKIE = 'canvas_ai_kit_session';
/** How long the kit takes over every hop before it answers. */
const THINK_MS = 100;
/** How long the kit says it waits for an answer (`expires_at`), as the reference server does (spec §20.1). */
const WAIT_TTL_MS = 15 * 60_000;
/**
 * How long after a waiting response the kit asks the client to stop, in a scenario that does: the client has read
 * the response and shows what the turn waits for (a stop before that is judged alike: no hop, a cancel).
 */
const STOP_AFTER_WAIT_MS = 500;
/**
 * How long after a streamed hop's outputs line the kit asks the client to stop (`stop-after-outputs`): the kit cannot
 * see when the client has read the line, so this leaves a slow client (a browser on a loaded machine) time to.
 */
const STOP_AFTER_OUTPUTS_MS = 1_500;

/** How the kit answers a fault that refuses a hop. */
interface Refusal {
  status: number;
  code: string;
  message: string;
  /** Send `Retry-After: 1`. */
  retryAfter?: boolean;
}

/** The faults that refuse a hop. */
type RefusalFault = Extract<
  KitFault,
  | 'busy'
  | 'unavailable'
  | 'gone'
  | 'provider-error'
  | 'unknown-code'
  | 'markup-refusal'
  | 'csrf-refused'
  | 'origin-refused'
>;
/** Each refusing fault as the kit answers it. */
const REFUSALS: Record<RefusalFault, Refusal> = {
  busy: {
    status: 409,
    code: 'hop_in_progress',
    message: 'The previous hop of this turn is still running.',
    retryAfter: true,
  },
  unavailable: { status: 503, code: 'store_unavailable', message: 'The turn store did not answer.', retryAfter: true },
  gone: { status: 410, code: 'turn_not_found', message: 'There is no such turn.' },
  'provider-error': { status: 502, code: 'provider_error', message: 'The model provider failed.' },
  'unknown-code': { status: 400, code: 'kit_unknown_refusal', message: 'A refusal with a code no revision has.' },
  'markup-refusal': { status: 400, code: 'invalid_request', message: MARKUP_ERROR },
  'csrf-refused': { status: 403, code: 'csrf_invalid', message: 'The CSRF token is not valid for this session.' },
  // Worded about a token, so a client that reads `message` instead of the code fetches one in vain (spec §7).
  'origin-refused': {
    status: 403,
    code: 'origin_not_allowed',
    message: 'This page may not send hops here, with any CSRF token.',
  },
};

/** How long after answering a held hop late the kit answers the cancel that let it go. */
const LATE_CANCEL_MS = 300;

/**
 * The client kit's server: the protocol's endpoints on 127.0.0.1, answering each hop as the running scenario
 * scripts it (outputs, faults, the final answer), and recording every request the client under test makes. It
 * keeps no model and no turn store: a scenario is a list of answers, one per hop.
 */
export class KitServer {
  private server: Server | undefined;
  private recording: ScenarioRecording | undefined;
  private started = 0;
  /** Per hop number: the response the kit sent (a repeated hop gets it again, spec §8.2). */
  private answered = new Map<number, HopResponse>();
  /** Faults already played, per hop, so that the retry gets the scripted answer. */
  private faultsPlayed = new Set<number>();
  /**
   * Lets a held hop go (the `stop` scenarios): its client aborted it, the scenario ended, or its cancel arrived
   * (`cancelled`). Returns whether the hop was then answered with its outputs (the fault `answer-late`).
   */
  private releaseHeld: ((cancelled?: boolean) => boolean) | undefined;
  /**
   * Heard when the scenario wants the person to stop: a hop it holds has arrived, or the turn waits (the runner then
   * asks the client to stop).
   */
  onStopWanted: (() => void) | undefined;
  /** The stop a waiting scenario has scheduled, cleared when the scenario ends. */
  private stopTimer: ReturnType<typeof setTimeout> | undefined;

  url = '';

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) this.error(response, 500, 'internal_error', String(error));
        else response.destroy();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    clearTimeout(this.stopTimer);
    this.releaseHeld?.();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Starts recording `scenario`: a new session, nothing answered yet. */
  begin(scenario: ClientScenario): ScenarioRecording {
    this.releaseHeld?.();
    clearTimeout(this.stopTimer);
    this.recording = {
      scenario,
      requests: [],
      expectedAfter: new Map(),
      waits: new Map(),
      notOffered: [],
    };
    this.started = performance.now();
    this.answered = new Map();
    this.faultsPlayed = new Set();
    return this.recording;
  }

  /** Marks when the kit asked the client to stop. */
  stopAsked(): void {
    if (this.recording) this.recording.stopAskedAt = this.now();
  }

  /** Ends the running scenario: a held hop is let go (its client has gone). */
  end(): void {
    clearTimeout(this.stopTimer);
    this.releaseHeld?.();
  }

  private now(): number {
    return performance.now() - this.started;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const recording = this.recording;
    const startedAt = this.now();
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
    ) as Record<string, string>;
    const { body, attachments } = await readHopBody(request, headers['content-type'] ?? '');
    const entry: RecordedRequest = {
      method: request.method ?? '',
      path: url.pathname,
      headers,
      body,
      ...(attachments ? { attachments } : {}),
      startedAt,
      endedAt: startedAt,
      status: 0,
    };
    recording?.requests.push(entry);
    // The answer's end is when the kit wrote its last byte (a client can read it only after), or when the
    // connection closed without one.
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      entry.endedAt = this.now();
      return end(...args);
    }) as typeof response.end;
    response.on('close', () => {
      if (!response.writableEnded) entry.endedAt = this.now();
    });

    if (request.method === 'GET' && url.pathname === '/api/token') return this.issueToken(response, recording, entry);
    if (request.method === 'GET' && url.pathname === '/api/agents') {
      entry.status = 200;
      return json(response, 200, KIT_AGENTS);
    }
    if (url.pathname === '/api/hop' && request.method === 'POST') return this.hop(entry, response);
    const turn = /^\/api\/hop\/([^/]+)$/.exec(url.pathname);
    if (turn && request.method === 'DELETE') {
      // A hop answered as the cancel came: the cancel's own answer comes a little after it, so a client that acts on
      // that answer has had the late response in hand first.
      if (this.releaseHeld?.(true)) await new Promise((resolve) => setTimeout(resolve, LATE_CANCEL_MS));
      entry.status = 200;
      const cancelled: CancelResponse = { status: true, request_id: decodeURIComponent(turn[1]!), cancelled: true };
      return json(response, 200, cancelled);
    }
    if (turn && request.method === 'GET') {
      entry.status = 410;
      return this.error(response, 410, 'turn_not_found', 'The kit keeps no turn status.');
    }
    entry.status = 404;
    return this.error(response, 404, 'not_found', `No endpoint ${request.method} ${url.pathname} in the client kit.`);
  }

  /**
   * A CSRF token, and a session unless the request carries the one the kit issued (a client that fetches a new token
   * after 403 `csrf_invalid` keeps its session, spec §4.2).
   */
  private issueToken(response: ServerResponse, recording: ScenarioRecording | undefined, entry: RecordedRequest): void {
    const sent = (entry.headers.cookie ?? '').split(/;\s*/);
    const kept = recording?.cookie !== undefined && sent.includes(recording.cookie);
    const token = randomBytes(16).toString('base64url');
    entry.issuedToken = token;
    entry.status = 200;
    if (!kept) {
      const session = randomBytes(12).toString('base64url');
      if (recording) recording.cookie = `${SESSION_COOKIE}=${session}`;
      response.setHeader('Set-Cookie', `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict`);
    }
    json(response, 200, { token, header: CSRF_HEADER } satisfies TokenResponse);
  }

  private async hop(entry: RecordedRequest, response: ServerResponse): Promise<void> {
    // A hop takes a while, as a model call does: a client that sends a second request meanwhile shows as one.
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    const parsed = HopRequest.safeParse(entry.body);
    entry.hop = parsed;
    const scenario = this.recording?.scenario;
    if (!parsed.success || !scenario) {
      entry.status = 400;
      return this.error(response, 400, 'invalid_request', 'The kit could not read this hop as a HopRequest.');
    }
    const hop = parsed.data;
    if (hop.hop === 1 && this.recording) {
      this.recording.declaredWaits = [...(hop.capabilities?.waits ?? [])];
      this.recording.declaredOutputs = [...(hop.capabilities?.outputs ?? [])];
    }
    const step: HopStep = scenario.hops[hop.hop - 1] ?? { kind: 'answer', text: 'Done.' };
    const replay = this.answered.get(hop.hop);
    if (replay) {
      entry.status = 200;
      return this.send(response, entry, replay);
    }
    // A refused origin is refused again on every try, as a server refuses it; every other fault plays once.
    if (step.fault && (!this.faultsPlayed.has(hop.hop) || step.fault === 'origin-refused')) {
      this.faultsPlayed.add(hop.hop);
      entry.fault = step.fault;
      return this.playFault(step.fault, entry, response, () => this.respond(hop, step));
    }
    const refusal = this.answerRefusal(hop, entry.attachments?.length ?? 0);
    if (refusal) {
      entry.status = 400;
      return this.error(response, 400, refusal.code, refusal.message, refusal.field);
    }
    const answer = this.respond(hop, step);
    entry.status = 200;
    this.send(response, entry, answer);
    if (answer.should_continue && answer.waiting && this.recording?.scenario.stopWhileWaiting)
      this.stopTimer = setTimeout(() => this.onStopWanted?.(), STOP_AFTER_WAIT_MS);
  }

  /**
   * Why the reference server would refuse this hop's `answer` (spec §20.1): none to a turn that waits, one to a turn
   * that waits for nothing, or one that does not fit the wait (`answerProblems`, the reference server's own rule).
   */
  private answerRefusal(hop: HopRequest, images: number): { code: string; message: string; field: string } | undefined {
    const waiting = this.recording?.waits.get(hop.hop - 1);
    if (!waiting) {
      return hop.answer === undefined
        ? undefined
        : { code: 'invalid_request', message: 'This turn waits for no answer.', field: 'answer' };
    }
    if (hop.answer === undefined)
      return {
        code: 'missing_field',
        message: `This turn waits for a ${waiting.kind}; send the answer.`,
        field: 'answer',
      };
    const [problem] = answerProblems(waiting, hop.answer, images);
    if (!problem) return undefined;
    return {
      code: problem.path === 'attachments' ? 'missing_field' : 'invalid_request',
      message: problem.message,
      field: problem.path,
    };
  }

  /** The response this step scripts, remembered for a repeat, with what the next hop should carry. */
  private respond(hop: HopRequest, step: HopStep): HopResponse {
    const document: CanvasDocument = { layout: hop.context.current_layout, page: hop.context.page ?? {} };
    // The proposed outputs the person approved come first, in their order (spec §20.5).
    const outputs: ToolOutput[] = this.declared([
      ...this.approvedOutputs(hop),
      ...(step.kind === 'outputs' ? step.outputs : []),
    ]);
    const applied = applyOutputsWithResults(document, outputs);
    this.recording?.expectedAfter.set(hop.hop, { document: applied.document, results: applied.results });
    const head = {
      status: true as const,
      protocol: PROTOCOL_VERSION as typeof PROTOCOL_VERSION,
      request_id: hop.request_id,
      hop: hop.hop,
      agent: { id: hop.agent ?? KIT_AGENTS.main_agent.id, label: 'Kit agent' },
      progress: step.progress ?? '',
      // A field of a newer revision: a client MUST ignore what it does not know (spec §7.1).
      kit_newer_field: { ignored: true },
    };
    const waiting = step.kind === 'outputs' && step.wait ? this.offer(hop.hop, step.wait) : undefined;
    const answer: HopResponse =
      step.kind === 'outputs'
        ? { ...head, outputs, should_continue: true, ...(waiting ? { waiting } : {}) }
        : { ...head, outputs: [], should_continue: false, message: step.text, finish_reason: 'answer' };
    this.answered.set(hop.hop, answer);
    return answer;
  }

  /** `outputs` without those of a type hop 1 did not declare (a server MUST NOT send them, spec §5.1). */
  private declared(outputs: ToolOutput[]): ToolOutput[] {
    const declared = this.recording?.declaredOutputs ?? [];
    return outputs.filter(
      ({ type }) => (REQUIRED_OUTPUT_TYPES as readonly string[]).includes(type) || declared.includes(type),
    );
  }

  /**
   * The wait this hop makes the turn wait for, when hop 1 declared its kind; else none (a server MUST NOT offer it,
   * spec §20.1; proposed outputs are then never sent, spec §20.5), noted for the checks.
   */
  private offer(hop: number, wait: KitWait): Waiting | undefined {
    const recording = this.recording;
    if (!recording?.declaredWaits?.includes(wait.kind)) {
      recording?.notOffered.push({ hop, kind: wait.kind });
      return undefined;
    }
    const expires_at = new Date(Date.now() + WAIT_TTL_MS).toISOString();
    const waiting: Waiting =
      wait.kind === 'approval'
        ? { kind: 'approval', call_id: wait.held[0]!.call_id, expires_at, approval: { changes: wait.changes } }
        : ({ ...wait, call_id: `kit_wait_${hop}`, expires_at } as Waiting);
    recording.waits.set(hop, waiting);
    return waiting;
  }

  /** The held outputs of the approval the turn waited for after the hop before this one, those `hop` approves. */
  private approvedOutputs(hop: HopRequest): ToolOutput[] {
    const step = this.recording?.scenario.hops[hop.hop - 2];
    const wait = step?.kind === 'outputs' ? step.wait : undefined;
    if (wait?.kind !== 'approval' || hop.answer?.kind !== 'approval' || !this.recording?.waits.has(hop.hop - 1))
      return [];
    const approved = new Set(hop.answer.approved);
    return wait.held.filter((output) => approved.has(output.call_id));
  }

  /** Whether this hop is answered as a stream: its client asked for one, and the scenario streams. */
  private streams(entry: RecordedRequest): boolean {
    return askedForStream(entry) && this.recording?.scenario.stream === true;
  }

  /** Answers a hop with `answer`: a stream to a client that asked for one (where the stream faults play), else JSON. */
  private send(response: ServerResponse, entry: RecordedRequest, answer: HopResponse): void {
    if (!this.streams(entry)) {
      // A client that asked for a stream from a server that does not stream gets JSON, told by its Content-Type
      // (spec §14.3).
      json(response, 200, answer);
      return;
    }
    response.writeHead(200, { 'Content-Type': NDJSON_MEDIA_TYPE });
    if (answer.outputs.length > 0) response.write(encodeStreamLine({ type: 'outputs', outputs: answer.outputs }));
    switch (entry.fault) {
      case 'cut-stream':
        // The connection ends without the stream's last line: a network failure to the client (spec §8.2).
        response.destroy();
        return;
      case 'stop-after-outputs': {
        // The model would run now: the person stops once the client has had the outputs line a while. The rest is
        // never sent; the connection ends when the client closes it, its cancel arrives or the scenario ends.
        this.stopTimer = setTimeout(() => this.onStopWanted?.(), STOP_AFTER_OUTPUTS_MS);
        const release = (): boolean => {
          if (this.releaseHeld === release) this.releaseHeld = undefined;
          if (!response.destroyed) response.destroy();
          return false;
        };
        this.releaseHeld = release;
        response.on('close', release);
        return;
      }
      case 'outputs-differ': {
        // The response line's outputs are the outputs line's, one value changed under the same call_id: a client MUST
        // end the turn (spec §6.1), even one that compares only how many outputs came, or their call ids.
        const differing = { ...answer, outputs: answer.outputs.map(withOtherValue) };
        response.end(encodeStreamLine({ type: 'response', response: differing }));
        return;
      }
      default:
        response.end(encodeStreamLine({ type: 'response', response: answer }));
    }
  }

  private playFault(fault: KitFault, entry: RecordedRequest, response: ServerResponse, run: () => HopResponse): void {
    switch (fault) {
      case 'lose':
        // The hop ran and its response is kept for a repeat, but the connection drops before the answer.
        run();
        entry.status = 0;
        response.destroy();
        return;
      case 'cut-stream':
      case 'stop-after-outputs':
      case 'outputs-differ':
        // Faults of a stream, played by `send` (a client that asked for JSON gets the whole answer).
        entry.status = 200;
        this.send(response, entry, run());
        return;
      case 'busy':
      case 'unavailable':
      case 'gone':
      case 'provider-error':
      case 'unknown-code':
      case 'markup-refusal':
      case 'csrf-refused':
      case 'origin-refused': {
        const { status, code, message, retryAfter } = REFUSALS[fault];
        entry.status = status;
        if (retryAfter) response.setHeader('Retry-After', '1');
        this.error(response, status, code, message);
        return;
      }
      case 'hold':
      case 'answer-late': {
        entry.status = 0;
        this.onStopWanted?.();
        // Held until the client aborts it, or the scenario ends, or its cancel arrives: then it answers 410 as a
        // cancelled hop does (spec §8.5) or, for `answer-late` and the cancel, the hop's outputs, as a hop that
        // finished just before its cancel was read.
        const release = (cancelled = false): boolean => {
          if (this.releaseHeld === release) this.releaseHeld = undefined;
          if (response.writableEnded || response.destroyed) return false;
          if (cancelled && fault === 'answer-late') {
            entry.status = 200;
            this.send(response, entry, run());
            return true;
          }
          entry.status = 410;
          this.error(response, 410, 'turn_not_found', 'The turn was cancelled while this hop ran.');
          return false;
        };
        this.releaseHeld = release;
        response.on('close', () => release());
        return;
      }
    }
  }

  private error(response: ServerResponse, status: number, code: string, message: string, field?: string): void {
    json(response, status, {
      status: false,
      should_continue: false,
      protocol: PROTOCOL_VERSION,
      progress: '',
      message,
      error: { code, ...(field ? { field } : {}) },
    });
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A request's body as the kit records it: JSON parsed, or a multipart hop's `request` field parsed and its files
 * listed (spec §4.3); undefined when it is neither.
 */
async function readHopBody(
  request: IncomingMessage,
  contentType: string,
): Promise<Pick<RecordedRequest, 'body' | 'attachments'>> {
  const bytes = await readBody(request);
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    try {
      const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
      const files = form.getAll('attachments').filter((part): part is File => typeof part !== 'string');
      const json = form.get('request');
      return {
        body: typeof json === 'string' ? parseJson(json) : undefined,
        attachments: await Promise.all(
          files.map(async (file) => ({
            name: file.name,
            type: file.type,
            size: file.size,
            image: sniffImageType(new Uint8Array(await file.slice(0, 16).arrayBuffer())),
          })),
        ),
      };
    } catch {
      return { body: undefined, attachments: [] };
    }
  }
  return { body: bytes.length > 0 ? parseJson(bytes.toString('utf8')) : undefined };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `output` with its value changed when it sets a page value; any other output as it is. */
function withOtherValue(output: ToolOutput): ToolOutput {
  return output.type === 'set_page_value' ? { ...output, value: `${String(output.value)} (not as streamed)` } : output;
}
