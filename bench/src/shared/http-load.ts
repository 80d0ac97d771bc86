import { Agent, request as httpRequest } from 'node:http';
import type { TurnBodies } from './bench-turn.js';

/** One virtual client's session: the headers it sends with every hop (cookie and CSRF token). */
export type SessionHeaders = Record<string, string>;

/** Opens a browser-like session on the reference server: `GET /api/token` gives the cookie and the CSRF token. */
export async function openSession(baseUrl: string): Promise<SessionHeaders> {
  const response = await fetch(`${baseUrl}/api/token`);
  if (!response.ok) throw new Error(`GET /api/token answered ${response.status}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { token, header } = (await response.json()) as { token: string; header: string };
  return { cookie, [header.toLowerCase()]: token };
}

/** What one load run measured inside its window. */
export interface LoadWindow {
  /** Hops whose response completed inside the window. */
  hops: number;
  seconds: number;
  /** Milliseconds from sending to the last byte of the response, for every hop completed inside the window. */
  latenciesMs: number[];
  /** Responses that were not a 200 with the expected `should_continue`. */
  errors: number;
  /** CPU time the load generator (this process) used during the window, as a share of one core. */
  clientCpuShare: number;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  /** The server's base URL: `POST <url>/api/hop`. */
  url: string;
  /** One entry per virtual client: that many hops are in flight at once. */
  sessions: readonly SessionHeaders[];
  bodies: TurnBodies;
  /** Requests completed before this many milliseconds are not counted (the window starts after it). */
  warmupMs: number;
  /** The window's length. */
  durationMs: number;
  /** Makes request ids unique across runs against one server. */
  runId: string;
}

/**
 * Runs back-to-back bench turns from every virtual client at once over keep-alive connections (one per client)
 * and counts what completed inside the window. Each client sends a turn's hops one after another, as the widget
 * does, and starts a new turn when one ends.
 */
export async function runLoad(options: LoadOptions): Promise<LoadWindow> {
  const url = new URL('/api/hop', options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.sessions.length });
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const latenciesMs: number[] = [];
  let hops = 0;
  let errors = 0;
  // The load generator's own CPU during the window: near 1.0 means the client, not the server, set the pace.
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let cpuInWindow: NodeJS.CpuUsage | undefined;
  const cpuTimers = [
    setTimeout(() => (cpuAtStart = process.cpuUsage()), options.warmupMs),
    setTimeout(() => (cpuInWindow = process.cpuUsage(cpuAtStart)), options.warmupMs + options.durationMs),
  ];

  // A window lasts until it has measured one answered hop: on a machine busy enough that no hop finishes within a
  // short window, it grows (and its length is what it really lasted) instead of leaving no latency to report.
  let lastCounted = windowEnd;
  let lastFailure = '';
  const inWindow = (done: number) => done >= windowStart && (done <= windowEnd || hops === 0);
  const goesOn = () => {
    if (performance.now() < windowEnd) return true;
    if (hops > 0) return false;
    // Nothing answered at all: a window that waits for one hop must not wait forever on a server that refuses.
    if (performance.now() > windowEnd + GIVE_UP_MS) {
      throw new Error(`no hop answered within ${GIVE_UP_MS} ms after the window; the last answer: ${lastFailure}`);
    }
    return true;
  };
  const client = async (index: number, headers: SessionHeaders): Promise<void> => {
    for (let turn = 0; goesOn(); turn += 1) {
      const requestId = `${options.runId}-${index}-${turn}`;
      let ended = false;
      for (let hop = 1; hop <= options.bodies.hops && goesOn(); hop += 1) {
        const sent = performance.now();
        const reply = await post(agent, url, headers, options.bodies.body(hop, requestId));
        const done = performance.now();
        const expected = hop === options.bodies.hops ? '"should_continue":false' : '"should_continue":true';
        const ok = reply.status === 200 && reply.body.includes(expected);
        if (inWindow(done)) {
          if (done > windowEnd) lastCounted = done;
          if (ok) {
            hops += 1;
            latenciesMs.push(done - sent);
          } else errors += 1;
        }
        if (!ok) {
          lastFailure = `HTTP ${reply.status} ${reply.body.slice(0, 300)}`;
          break;
        }
        ended = hop === options.bodies.hops;
      }
      // A turn left before its end is cancelled, as the widget does (spec §8.5): the server would otherwise count
      // it as running until it expires, and the quotas per address (spec §8.8) refuse new turns past 64.
      if (!ended) await send(agent, new URL(`${url.pathname}/${requestId}`, url), headers, 'DELETE');
    }
  };
  try {
    await Promise.all(options.sessions.map((headers, index) => client(index, headers)));
  } finally {
    cpuTimers.forEach(clearTimeout);
    agent.destroy();
  }
  const cpu = cpuInWindow ?? process.cpuUsage(cpuAtStart);
  return {
    hops,
    seconds: (lastCounted - windowStart) / 1000,
    latenciesMs,
    errors,
    clientCpuShare: (cpu.user + cpu.system) / 1000 / options.durationMs,
  };
}

/** How long past its window a load run waits for its first answered hop before it fails. */
const GIVE_UP_MS = 30_000;

function post(
  agent: Agent,
  url: URL,
  headers: SessionHeaders,
  body: string,
): Promise<{ status: number; body: string }> {
  return send(agent, url, headers, 'POST', body);
}

function send(
  agent: Agent,
  url: URL,
  headers: SessionHeaders,
  method: 'POST' | 'DELETE',
  body = '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method,
        agent,
        headers: {
          ...headers,
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
