/**
 * A turn run without a browser (from Node, a worker, a build script): the person's message and a JSON document in,
 * the document with the turn's outputs applied out. The same {@link ChatSession} a chat drives, with the protocol's
 * reducer as the host's store and a storage area in memory; the session cookie and CSRF token a browser would keep
 * are kept here (spec §4.2).
 */
import {
  applyOutputsWithResults,
  type CanvasDocument,
  type HopResponse,
  TOOL_OUTPUT_TYPES,
  TokenResponseChecker,
} from '@canvas-ai/protocol';
import { ChatSession } from './chat-session.js';
import type { ApproveHook, AskPersonHook, DecidePlanHook, HopReport, TextReport, TurnResult } from './hop-loop.js';
import type { GetScreenshotHook } from './screenshot.js';
import { ChatStorage, memoryArea } from './turn-storage.js';

export interface HeadlessTurnOptions {
  /** The agent server's base URL (`http://127.0.0.1:8787`): hops go to `/api/hop`, the CSRF token comes from `/api/token`. */
  server: string;
  /** The page the turn starts from. */
  document: CanvasDocument;
  /** The person's message. */
  message: string;
  /** The agent to ask; absent → the server's main agent. */
  agent?: string | undefined;
  /** Files the person attaches to the message: sent with hop 1 only, as multipart (spec §4.3). */
  attachments?: readonly Blob[] | undefined;
  /** Fetch a session and CSRF token from `/api/token` first (default true); false for a server that checks no CSRF. */
  csrf?: boolean | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Aborting it stops the turn; what it applied stays in the document it resolves with. */
  signal?: AbortSignal | undefined;
  /** Each hop, once its outputs were applied to the document. */
  onHop?: ((report: HopReport, document: CanvasDocument) => void) | undefined;
  /** The model's text as a streamed hop delivers it. */
  onText?: ((report: TextReport) => void) | undefined;
  /**
   * The output types the turn declares it applies (spec §5.1). Default: every type, as the shared reducer that
   * applies them to `document` knows them all, `remove_components` and `move_components` included.
   */
  outputTypes?: readonly string[] | undefined;
  /** Answers the questions an agent asks (spec §20.2); given, the turn declares the wait `question`. */
  askPerson?: AskPersonHook | undefined;
  /** Decides on the plans an agent proposes (spec §20.4); given, the turn declares the wait `plan`. */
  decidePlan?: DecidePlanHook | undefined;
  /** Supplies the screenshots an agent asks for (spec §20.3); given, the turn declares the wait `screenshot`. */
  getScreenshot?: GetScreenshotHook | undefined;
  /** Decides on the changes the agents config marks for approval (spec §20.5); given, the turn declares `approval`. */
  approve?: ApproveHook | undefined;
}

export interface HeadlessTurnResult {
  /** The document with every output the turn applied (on an error or a stop, those applied before it). */
  document: CanvasDocument;
  /** How the turn ended. */
  result: TurnResult;
  /** The agent's final answer; empty when the turn did not finish. */
  answer: string;
  /** The turn's narration, as its last response carried it. */
  progress: string;
}

/** Runs one turn to its end; never rejects for the turn's own failures (they are `result.status === 'error'`). */
export async function runHeadlessTurn(options: HeadlessTurnOptions): Promise<HeadlessTurnResult> {
  const base = options.server.replace(/\/+$/, '');
  const send = withCookies(options.fetch ?? globalThis.fetch);
  let document = options.document;
  const area = memoryArea();
  const token = options.csrf === false ? undefined : tokenSource(`${base}/api/token`, send);
  const session = new ChatSession({
    settings: () => ({
      endpoint: `${base}/api/hop`,
      fetch: send,
      csrfToken: token,
      getLayout: () => document,
      applyOutputs: (outputs) => {
        const applied = applyOutputsWithResults(document, outputs);
        document = applied.document;
        return applied.results;
      },
      signal: options.signal,
      outputTypes: options.outputTypes ?? TOOL_OUTPUT_TYPES,
      askPerson: options.askPerson,
      decidePlan: options.decidePlan,
      getScreenshot: options.getScreenshot,
      approve: options.approve,
    }),
    storage: () => new ChatStorage('canvas-ai-headless', area),
  });
  const turn = session.send(
    { messages: [{ role: 'user', text: options.message }], agent: options.agent, attachments: options.attachments },
    {
      onHop: (report) => options.onHop?.(report, document),
      onText: options.onText,
    },
  );
  // A new session is never busy, so it always starts the turn.
  const result = await turn!;
  const last: HopResponse | undefined = result.status === 'done' ? result.response : result.lastResponse;
  return {
    document,
    result,
    answer: result.status === 'done' ? result.response.message : '',
    progress: last?.progress ?? '',
  };
}

/**
 * `fetch` that keeps the cookies the server sets and sends them back, as a browser does for its origin. One server,
 * so domain and path are not looked at; a cookie set to expire is dropped.
 */
function withCookies(send: typeof fetch): typeof fetch {
  const cookies = new Map<string, string>();
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await send(input, { ...init, headers });
    for (const line of setCookies(response.headers)) {
      const [pair = '', ...attributes] = line.split(';');
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const name = pair.slice(0, equals).trim();
      if (attributes.some(isExpiry)) cookies.delete(name);
      else cookies.set(name, pair.slice(equals + 1).trim());
    }
    return response;
  };
}

/** Each `Set-Cookie` line (a `fetch` without `getSetCookie` joins them into one header: read as one). */
function setCookies(headers: Headers): string[] {
  if (typeof headers.getSetCookie === 'function') return headers.getSetCookie();
  const joined = headers.get('set-cookie');
  return joined ? [joined] : [];
}

/** Whether a cookie attribute clears the cookie: `Max-Age` of 0 or less, or an `Expires` in the past. */
function isExpiry(attribute: string): boolean {
  const [name = '', value = ''] = attribute.split('=').map((part) => part.trim());
  if (/^max-age$/i.test(name)) return Number(value) <= 0;
  if (/^expires$/i.test(name)) return Date.parse(value) <= Date.now();
  return false;
}

/** The CSRF token from `url`, fetched once and again when the server refused it (spec §4.2). */
function tokenSource(url: string, send: typeof fetch) {
  let pending: Promise<string> | undefined;
  const load = async (): Promise<string> => {
    const response = await send(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`GET ${url} answered HTTP ${response.status}.`);
    const parsed = TokenResponseChecker.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Error(`GET ${url} did not answer in the protocol's format.`);
    return parsed.data.token;
  };
  return (request?: { refresh: boolean }): Promise<string> => {
    if (request?.refresh) pending = undefined;
    // The loop words a failure ("Could not get a CSRF token: …"); the cause is kept as it is.
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
