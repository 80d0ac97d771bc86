// What one client may hold of the server, over real sockets: connections (in all and per address), how long headers
// and bodies may take to arrive, how many body bytes are buffered at once, and a client that goes away (spec §4.4).
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { createApp } from '../src/app.js';
import { silentLogger, type LogEntry } from '../src/log.js';
import { startServer, type RunningServer } from '../src/node.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { firstHop, openSession, sharedFixtures, type TestSession } from './support/harness.js';
import { startServerProcess } from './support/server-process.js';

const fixtures = await sharedFixtures();
const servers: RunningServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

/** A server of the fixtures with these app options and connection limits. */
async function serverWith(
  app: Partial<Parameters<typeof createApp>[0]> = {},
  limits: Parameters<typeof startServer>[1] = {},
): Promise<RunningServer> {
  const server = await startServer(
    createApp({
      agents: fixtures.agents,
      catalog: fixtures.catalog,
      provider: new ScriptedProvider(fixtures.scenarios),
      log: silentLogger,
      ...app,
    }),
    { port: 0, host: '127.0.0.1', ...limits },
  );
  servers.push(server);
  return server;
}

/** A raw socket to the server (from `localAddress`, a loopback address), with what it receives and its close. */
async function rawSocket(server: { port: number }, localAddress = '127.0.0.1') {
  const socket: Socket = connect({ port: server.port, host: '127.0.0.1', localAddress });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, closed, received: () => received };
}

/** The request line and headers of a hop with this session, declaring `length` body bytes. */
function hopHead(session: TestSession, length: number): string {
  const headers = { ...session.headers({ 'content-type': 'application/json' }), 'content-length': String(length) };
  return `POST /api/hop HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n')}\r\n\r\n`;
}

describe('timeouts', () => {
  it('answers a body that trickles in slower than the body timeout with 408 request_timeout', async () => {
    const server = await serverWith({ limits: { bodyTimeoutMs: 300 } });
    const session = await openSession(server);
    const raw = await rawSocket(server);
    raw.socket.write(hopHead(session, 100_000));
    raw.socket.write('{"protocol":');
    await raw.closed;
    assert.match(raw.received(), /^HTTP\/1\.1 408 /);
    assert.match(raw.received(), /"code":"request_timeout"/);
  });

  it('closes a connection whose headers trickle in slower than the headers timeout', async () => {
    const server = await serverWith({}, { headersTimeoutMs: 300 });
    const raw = await rawSocket(server);
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    await raw.closed;
    assert.match(raw.received(), /^HTTP\/1\.1 408 /);
  });

  it('takes its timeouts from the CLI flags', async () => {
    const cli = await startServerProcess(['--headers-timeout', '300ms', '--body-timeout', '300ms']);
    try {
      const server = { port: Number(new URL(cli.url).port) };
      const session = await openSession(cli);
      const body = await rawSocket(server);
      body.socket.write(hopHead(session, 1_000));
      await body.closed;
      assert.match(body.received(), /"code":"request_timeout"/);
      const headers = await rawSocket(server);
      headers.socket.write('GET /healthz HTTP/1.1\r\n');
      await headers.closed;
      assert.match(headers.received(), /^HTTP\/1\.1 408 /);
    } finally {
      await cli.kill();
    }
  });
});

describe('connections', () => {
  it('closes a connection past the limit on arrival, and serves again once one is gone', async () => {
    const server = await serverWith({}, { maxConnections: 3, maxConnectionsPerIp: 0 });
    const held = await Promise.all([rawSocket(server), rawSocket(server), rawSocket(server)]);
    const extra = await rawSocket(server);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await extra.closed;
    assert.equal(extra.received(), '', 'closed without an answer');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const reply = await fetch(`${server.url}/healthz`);
    assert.equal(reply.status, 200);
    for (const raw of held) raw.socket.destroy();
  });

  it('G4: keeps the last connections for clients that hold few, so a health check is answered when one address holds the rest', async () => {
    const server = await serverWith({}, { maxConnections: 16, reservedConnections: 4, maxConnectionsPerIp: 0 });
    // Twelve slow bodies from one address (127.0.0.2, still loopback) take every connection but the reserve.
    const held = [];
    for (let index = 0; index < 12; index += 1) held.push(await rawSocket(server, '127.0.0.2'));
    const extra = await rawSocket(server, '127.0.0.2');
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await extra.closed;
    assert.equal(extra.received(), '', 'the address that holds twelve gets no more');
    const probe = await rawSocket(server, '127.0.0.3');
    probe.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await probe.closed;
    assert.match(probe.received(), /^HTTP\/1\.1 200 /, 'another client is answered from the reserve');
    for (const raw of held) raw.socket.destroy();
  });

  it('closes a connection past the per-address limit, while the address keeps those it has', async () => {
    const server = await serverWith({}, { maxConnectionsPerIp: 2 });
    const first = await rawSocket(server);
    const second = await rawSocket(server);
    const third = await rawSocket(server);
    await third.closed;
    assert.equal(third.received(), '');
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => first.socket.once('data', resolve));
    assert.match(first.received(), /^HTTP\/1\.1 200 /, 'an open connection is still served');
    first.socket.destroy();
    second.socket.destroy();
  });
});

describe('buffered body bytes', () => {
  it('refuses a body the budget cannot hold with 503 server_busy and Retry-After, then frees what a request held', async () => {
    const server = await serverWith({ limits: { maxBufferedBodyBytes: 100_000 } });
    const session = await openSession(server);
    // Two uploads of 60,000 declared bytes, each waiting for the rest of its body: whichever the server reads first
    // holds its share, and the other does not fit.
    const uploads = await Promise.all([rawSocket(server), rawSocket(server)]);
    for (const upload of uploads) {
      upload.socket.write(hopHead(session, 60_000));
      upload.socket.write('{"protocol":"canvas-ai/1"');
    }
    const refusedIndex = await Promise.race(
      uploads.map(
        (upload, index) => new Promise<number>((resolve) => upload.socket.once('data', () => resolve(index))),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const refused = uploads[refusedIndex]!.received();
    assert.match(refused, /^HTTP\/1\.1 503 /);
    assert.match(refused, /retry-after: 1\r\n/i);
    assert.match(refused, /"code":"server_busy"/);
    const holder = uploads[1 - refusedIndex]!;
    assert.equal(holder.received(), '', 'the other upload is still being read');
    holder.socket.destroy();
    await holder.closed;
    // Given back when the request ended (its client went away): a body as large fits again.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const body = {
        ...firstHop(`busy-${attempt}`, 'Hi'),
        context: { current_layout: { regions: {} }, extra: 'x'.repeat(59_000) },
      };
      status = (await session.hop(body)).status;
    }
    assert.equal(status, 200);
    for (const upload of uploads) upload.socket.destroy();
  });
});

describe('a client that goes away mid-body', () => {
  it('is answered without a server failure and logged as nothing', async () => {
    const logs: LogEntry[] = [];
    const app = createApp({
      agents: fixtures.agents,
      catalog: fixtures.catalog,
      provider: new ScriptedProvider(fixtures.scenarios),
      log: (entry) => logs.push(entry),
    });
    const token = await app.fetch(new Request('http://127.0.0.1/api/token'));
    const cookie = token.headers.get('set-cookie')!.split(';')[0]!;
    const headers = { cookie, 'x-csrf-token': ((await token.json()) as { token: string }).token };
    // The body stream errors as Node's does when the client's connection closes mid-body.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"protocol":"canvas-ai/1"'));
        setTimeout(() => controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), 10);
      },
    });
    const reply = await app.fetch(
      new Request('http://127.0.0.1/api/hop', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    assert.equal(reply.status, 400, 'a refusal at the door, not a 500');
    assert.equal(((await reply.json()) as { error: { code: string } }).error.code, 'invalid_request');
    assert.deepEqual(logs, [], 'nothing logged: no internal_error, no stack');
  });
});
