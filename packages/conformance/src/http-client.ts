import { NDJSON_MEDIA_TYPE } from '@canvas-ai/protocol';
import { CookieJar } from './cookie-jar.js';

/**
 * Which endpoint an exchange was with, so every response can be checked against its schema: `door` is any other
 * method on the hop endpoint's paths (a 405 or 404 the kit provoked), `stream` a hop answered as NDJSON (spec §6.1,
 * judged by the stream checks), `other` what no schema judges (HEAD, health).
 */
export type ExchangeKind = 'hop' | 'stream' | 'cancel' | 'status' | 'token' | 'agents' | 'door' | 'other';

/** One request the kit sent and what came back. */
export interface Exchange {
  kind: ExchangeKind;
  method: string;
  url: string;
  status: number;
  /** The decoded JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** Whether the body was JSON. */
  json: boolean;
  /** The response's headers (`Allow`, `Set-Cookie`, …). */
  headers: Headers;
}

/** Where the server under test lives. */
export interface ClientOptions {
  /** The hop endpoint; cancel is `DELETE <endpoint>/<request_id>`. */
  endpoint: string;
  /** `GET` it for the CSRF token (and the session cookie). Absent: the server does not check CSRF. */
  tokenEndpoint?: string;
  agentsEndpoint?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Most milliseconds one request may take. Default 120,000 (a real model can be slow). */
  timeoutMs?: number;
}

/** Options of one hop sent by the kit. */
export interface SendOptions {
  /** Send this session's CSRF token. Default true. */
  csrf?: boolean;
  /** Extra headers, applied last. */
  headers?: Record<string, string>;
}

interface CsrfToken {
  header: string;
  token: string;
}

/**
 * The kit's HTTP client: one session (a tiny cookie jar for the session cookie, the CSRF token fetched once from the
 * token endpoint), and a log of every exchange, shared with the sessions it forks, for the schema checks.
 */
export class ConformanceClient {
  readonly options: ClientOptions;
  /** Every exchange of this client and of its forks, in order. */
  readonly exchanges: Exchange[];
  readonly jar = new CookieJar();
  readonly #fetch: typeof fetch;
  #token: Promise<CsrfToken | undefined> | undefined;

  constructor(options: ClientOptions, exchanges: Exchange[] = []) {
    this.options = options;
    this.exchanges = exchanges;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** A client with a session of its own (an empty jar, its own token) that logs into the same exchanges. */
  fork(): ConformanceClient {
    return new ConformanceClient(this.options, this.exchanges);
  }

  /** A fetch that sends this session's cookies, keeps the ones set, and logs the exchange (for `driveScenario`). */
  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    const cookie = this.jar.header();
    if (cookie !== undefined && !headers.has('cookie')) headers.set('cookie', cookie);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const response = await this.#fetch(request.url, {
      method: request.method,
      headers,
      body,
      signal: init?.signal ?? AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
    });
    this.jar.store(response.headers);
    const text = await response.text();
    const endpointKind = this.#kindOf(request.method, request.url);
    const kind = endpointKind === 'hop' && isStream(response.headers) ? 'stream' : endpointKind;
    // A stream stays text: a stream of one line would otherwise pass for a JSON body.
    const decoded = kind === 'stream' ? { body: text, json: false } : decode(text);
    this.exchanges.push({
      kind,
      method: request.method,
      url: request.url,
      status: response.status,
      ...decoded,
      headers: response.headers,
    });
    const nullBody = [101, 204, 205, 304].includes(response.status);
    return new Response(nullBody ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  /** Sends a request and returns the logged exchange. */
  async send(url: string, init: RequestInit): Promise<Exchange> {
    await this.fetch(url, init);
    return this.exchanges.at(-1)!;
  }

  /** This session's CSRF header, fetched once; empty when the server has no token endpoint. */
  async csrfHeaders(): Promise<Record<string, string>> {
    const token = await this.csrfToken();
    return token ? { [token.header]: token.token } : {};
  }

  /** This session's CSRF token (from `GET <token endpoint>`, once), or undefined without a token endpoint. */
  csrfToken(): Promise<CsrfToken | undefined> {
    this.#token ??= this.#fetchToken();
    return this.#token;
  }

  /** POSTs a multipart body (hop 1 with attachments, spec §4.3); the boundary is set by `fetch`. */
  async postForm(form: FormData, options: SendOptions = {}): Promise<Exchange> {
    const headers = { ...(options.csrf === false ? {} : await this.csrfHeaders()), ...options.headers };
    return this.send(this.options.endpoint, { method: 'POST', headers, body: form });
  }

  /** POSTs a hop request as JSON. */
  postHop(body: unknown, options: SendOptions = {}): Promise<Exchange> {
    return this.postRaw(JSON.stringify(body), 'application/json', options);
  }

  /** POSTs a body verbatim with a content type (absent: no `Content-Type` header). */
  async postRaw(text: string, contentType: string | undefined, options: SendOptions = {}): Promise<Exchange> {
    const headers: Record<string, string> = { ...(options.csrf === false ? {} : await this.csrfHeaders()) };
    if (contentType !== undefined) headers['content-type'] = contentType;
    return this.send(this.options.endpoint, {
      method: 'POST',
      headers: { ...headers, ...options.headers },
      body: text,
    });
  }

  /** `DELETE <endpoint>/<request_id>`; the id is sent as given (URL-encoded). */
  async cancel(requestId: string, options: SendOptions = {}): Promise<Exchange> {
    const headers = { ...(options.csrf === false ? {} : await this.csrfHeaders()), ...options.headers };
    return this.send(this.cancelUrl(requestId), { method: 'DELETE', headers });
  }

  /** `GET <endpoint>/<request_id>`: where a turn of this session stands (spec §8.6); sends the session cookie only. */
  async status(requestId: string): Promise<Exchange> {
    return this.send(this.cancelUrl(requestId), { method: 'GET' });
  }

  /** Where a turn is cancelled, and its status read. */
  cancelUrl(requestId: string): string {
    return `${this.options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(requestId)}`;
  }

  /** `GET <agents endpoint>`, or undefined without one. */
  async getAgents(): Promise<Exchange | undefined> {
    if (this.options.agentsEndpoint === undefined) return undefined;
    return this.send(this.options.agentsEndpoint, { method: 'GET' });
  }

  async #fetchToken(): Promise<CsrfToken | undefined> {
    const url = this.options.tokenEndpoint;
    if (url === undefined) return undefined;
    const exchange = await this.send(url, { method: 'GET' });
    const body = exchange.body as { token?: unknown; header?: unknown } | null;
    if (exchange.status !== 200 || typeof body?.token !== 'string') {
      throw new Error(`GET ${url} answered ${exchange.status} without a token, so no hop can carry a CSRF token`);
    }
    return { header: typeof body.header === 'string' ? body.header : 'X-CSRF-Token', token: body.token };
  }

  #kindOf(method: string, url: string): ExchangeKind {
    const endpoint = this.options.endpoint.replace(/\/+$/, '');
    if (method === 'POST' && url.replace(/\/+$/, '') === endpoint) return 'hop';
    if (method === 'DELETE' && url.startsWith(`${endpoint}/`)) return 'cancel';
    // One segment after the hop endpoint is a turn; a deeper path is a door probe (a 404 the kit provoked).
    if (method === 'GET' && url.startsWith(`${endpoint}/`) && !url.slice(endpoint.length + 1).includes('/'))
      return 'status';
    if (method === 'GET' && url === this.options.tokenEndpoint) return 'token';
    if (method === 'GET' && url === this.options.agentsEndpoint) return 'agents';
    const path = url.replace(/\/+$/, '');
    if (method !== 'HEAD' && (path === endpoint || path.startsWith(`${endpoint}/`))) return 'door';
    return 'other';
  }
}

/** Whether an answer is a streamed hop: its media type is NDJSON, whatever its parameters and case (spec §4.1). */
export function isStream(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === NDJSON_MEDIA_TYPE;
}

function decode(text: string): { body: unknown; json: boolean } {
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/** A readable one-line summary of an exchange's answer: `409 hop_in_progress` or `200`. */
export function describeAnswer(exchange: Exchange): string {
  const code = errorCodeOf(exchange.body);
  const field = errorFieldOf(exchange.body);
  return `${exchange.status}${code ? ` ${code}` : ''}${field ? ` (field ${field})` : ''}`;
}

/** The `error.code` of an error body, if any. */
export function errorCodeOf(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The `error.field` of an error body, if any. */
export function errorFieldOf(body: unknown): string | undefined {
  const field = (body as { error?: { field?: unknown } } | null)?.error?.field;
  return typeof field === 'string' ? field : undefined;
}
