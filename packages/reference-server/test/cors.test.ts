// Host pages on another origin (spec §4.6), over real HTTP: preflights and grants for the listed origins only,
// errors included, and a whole turn with credentials from a listed origin.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../src/config-error.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, startTestServer, type TestServer } from './support/harness.js';

const EDITOR = 'http://127.0.0.1:5173';
const STRANGER = 'http://127.0.0.1:6666';
const OTHER = 'https://other.example';

function preflight(server: TestServer, path: string, origin: string, method = 'POST'): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,x-csrf-token',
    },
  });
}

describe('CORS for a host page on another origin (spec §4.6)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ security: { allowedOrigins: [EDITOR] } });
  });
  after(() => server.close());

  it('answers a listed origin’s preflight with 204 and the grant, naming the endpoint’s methods', async () => {
    const hop = await preflight(server, '/api/hop', EDITOR);
    assert.equal(hop.status, 204);
    assert.equal(hop.headers.get('access-control-allow-origin'), EDITOR);
    assert.equal(hop.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(hop.headers.get('access-control-allow-methods'), 'POST');
    const allowed = (hop.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    assert.ok(allowed.includes('content-type') && allowed.includes('x-csrf-token'), allowed.join(','));
    // A page that traces sends W3C trace context on every hop (spec §4.7).
    assert.ok(allowed.includes('traceparent') && allowed.includes('tracestate'), allowed.join(','));
    assert.match(hop.headers.get('vary') ?? '', /origin/i);
    assert.ok(Number(hop.headers.get('access-control-max-age')) > 0);

    const turn = await preflight(server, '/api/hop/some-turn', EDITOR, 'DELETE');
    assert.equal(turn.status, 204);
    assert.equal(turn.headers.get('access-control-allow-methods'), 'GET, DELETE');
  });

  it('refuses the preflight of an origin that is not listed, without any grant', async () => {
    const reply = await preflight(server, '/api/hop', STRANGER);
    assert.equal(reply.status, 403);
    assert.equal(reply.headers.get('access-control-allow-origin'), null);
    assert.equal(((await reply.json()) as { error: { code: string } }).error.code, 'origin_not_allowed');
  });

  it('keeps OPTIONS without the preflight headers a method the endpoints do not have (405)', async () => {
    const reply = await fetch(`${server.url}/api/hop`, { method: 'OPTIONS' });
    assert.equal(reply.status, 405);
    assert.equal(reply.headers.get('access-control-allow-origin'), null);
  });

  it('grants every answer to the listed origin, errors included, and no answer to another', async () => {
    const agents = await fetch(`${server.url}/api/agents`, { headers: { origin: EDITOR } });
    assert.equal(agents.status, 200);
    assert.equal(agents.headers.get('access-control-allow-origin'), EDITOR);
    assert.equal(agents.headers.get('access-control-allow-credentials'), 'true');
    assert.match(agents.headers.get('access-control-expose-headers') ?? '', /retry-after/i);

    const refused = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { origin: EDITOR, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(refused.status, 403, 'no session, no token');
    assert.equal(refused.headers.get('access-control-allow-origin'), EDITOR, 'the page can read why');

    const stranger = await fetch(`${server.url}/api/token`, { headers: { origin: STRANGER } });
    assert.equal(stranger.status, 200, 'GET needs no origin check (a page cannot read the answer without a grant)');
    assert.equal(stranger.headers.get('access-control-allow-origin'), null);
    const strangerHop = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { origin: STRANGER, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(strangerHop.status, 403);
    assert.equal(((await strangerHop.json()) as { error: { code: string } }).error.code, 'origin_not_allowed');
  });

  it('G9: says Vary: Origin on every answer once origins are listed, granted or not: API, static, errors, 404s', async () => {
    const own = await startTestServer({
      security: { allowedOrigins: [EDITOR] },
      staticFiles: (request) =>
        new URL(request.url).pathname === '/'
          ? new Response('<h1>editor</h1>', { headers: { 'content-type': 'text/html', vary: 'Accept-Encoding' } })
          : undefined,
    });
    try {
      const answers: [string, Promise<Response>][] = [];
      for (const origin of [undefined, STRANGER, EDITOR]) {
        const headers: Record<string, string> = origin ? { origin } : {};
        const from = origin ?? 'no origin';
        answers.push(
          [`GET /api/agents, ${from}`, fetch(`${own.url}/api/agents`, { headers })],
          [`GET /api/token, ${from}`, fetch(`${own.url}/api/token`, { headers })],
          [`GET / (static), ${from}`, fetch(`${own.url}/`, { headers })],
          [`HEAD / (static), ${from}`, fetch(`${own.url}/`, { method: 'HEAD', headers })],
          [`GET /missing.js (404), ${from}`, fetch(`${own.url}/missing.js`, { headers })],
          [`PUT /api/hop (405), ${from}`, fetch(`${own.url}/api/hop`, { method: 'PUT', headers })],
          [`POST /api/hop without a session (403), ${from}`, fetch(own.hopUrl, { method: 'POST', headers })],
          [`GET /healthz, ${from}`, fetch(`${own.url}/healthz`, { headers })],
        );
      }
      answers.push(['a stranger’s preflight (403)', preflight(own, '/api/hop', STRANGER)]);
      for (const [what, answer] of answers) {
        const vary = (await answer).headers.get('vary') ?? '';
        assert.ok(
          vary.split(',').filter((name) => name.trim().toLowerCase() === 'origin').length === 1,
          `${what}: ${vary}`,
        );
      }
      const page = await fetch(`${own.url}/`);
      assert.match(page.headers.get('vary') ?? '', /^Accept-Encoding, Origin$/, 'the file’s own Vary kept');
    } finally {
      await own.close();
    }
  });

  it('runs a whole turn for the listed origin with the session cookie and the CSRF token', async () => {
    const session = await openSession(server);
    const withOrigin = (extra: Record<string, string> = {}) => session.headers({ origin: EDITOR, ...extra });
    const post = async (body: unknown) => {
      const reply = await fetch(server.hopUrl, {
        method: 'POST',
        headers: withOrigin({ 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
      assert.equal(reply.headers.get('access-control-allow-origin'), EDITOR);
      return { status: reply.status, body: (await reply.json()) as { should_continue: boolean } };
    };
    const builder = { agent: 'page_builder' };
    let reply = await post(firstHop('cors-1', 'Add a hero for my bakery, Crumb & Co.', builder));
    let hop = 1;
    while (reply.status === 200 && reply.body.should_continue && hop < 10) {
      hop += 1;
      reply = await post(laterHop('cors-1', hop, EMPTY_LAYOUT, builder));
    }
    assert.equal(reply.status, 200);
    assert.equal(reply.body.should_continue, false, `the turn ended at hop ${hop}`);
  });

  it('sets a SameSite=None, Secure cookie only when asked, and refuses None without Secure', async () => {
    const lax = await fetch(`${server.url}/api/token`);
    assert.match(lax.headers.get('set-cookie') ?? '', /; SameSite=Lax/);
    const crossSite = await startTestServer({ security: { secureCookies: true, crossSiteCookies: true } });
    try {
      const none = await fetch(`${crossSite.url}/api/token`);
      assert.match(none.headers.get('set-cookie') ?? '', /^__Host-canvas_ai_session=[^;]+; .*Secure; SameSite=None/);
    } finally {
      await crossSite.close();
    }
    await assert.rejects(startTestServer({ security: { crossSiteCookies: true } }), ConfigError);
  });
});

describe('an origin the server does not serve, in its log', () => {
  /** The log's `origin_not_allowed` lines: origin, method, path. */
  const refusals = (server: TestServer) =>
    server.logs
      .filter((entry) => entry.event === 'origin_not_allowed')
      .map((entry) => [entry.origin, entry.method, entry.path]);

  it('logs one line per origin naming it and the setting that allows it, whether refused or not granted', async () => {
    // A new server lists no origin: the set-up of someone trying the widget on another port.
    const server = await startTestServer();
    try {
      const token = await fetch(`${server.url}/api/token`, { headers: { origin: STRANGER } });
      assert.equal(token.headers.get('access-control-allow-origin'), null, 'not granted');
      const line = server.logs.find((entry) => entry.event === 'origin_not_allowed')!;
      assert.equal(line.origin, STRANGER);
      assert.match(String(line.answer), /no CORS grant/);
      assert.equal(
        line.fix,
        "to serve pages of this origin, add it to --allowed-origins (CANVAS_AI_ALLOWED_ORIGINS; createApp's security.allowedOrigins)",
      );

      // The same page goes on (its preflight refused, a POST refused): no second line for it.
      assert.equal((await preflight(server, '/api/hop', STRANGER)).status, 403);
      const hop = await fetch(server.hopUrl, {
        method: 'POST',
        headers: { origin: STRANGER, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(hop.status, 403);
      // Another origin's first request is a refused preflight: its own line.
      assert.equal((await preflight(server, '/api/hop', OTHER)).status, 403);

      assert.deepEqual(refusals(server), [
        [STRANGER, 'GET', '/api/token'],
        [OTHER, 'OPTIONS', '/api/hop'],
      ]);
      const other = server.logs.filter((entry) => entry.event === 'origin_not_allowed')[1]!;
      assert.equal(other.answer, '403 origin_not_allowed');
    } finally {
      await server.close();
    }
  });

  it('logs a refused POST from an origin it has not seen, and cuts a long origin', async () => {
    const server = await startTestServer();
    try {
      const long = `https://${'a'.repeat(300)}.example`;
      const hop = await fetch(server.hopUrl, {
        method: 'POST',
        headers: { origin: long, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(hop.status, 403);
      assert.deepEqual(refusals(server), [[long.slice(0, 200), 'POST', '/api/hop']]);
    } finally {
      await server.close();
    }
  });

  it('logs nothing for a listed origin, the server’s own, or a request without Origin', async () => {
    const server = await startTestServer({ security: { allowedOrigins: [EDITOR] } });
    try {
      assert.equal((await preflight(server, '/api/hop', EDITOR)).status, 204);
      await fetch(`${server.url}/api/agents`, { headers: { origin: EDITOR } });
      await fetch(`${server.url}/api/agents`, { headers: { origin: new URL(server.url).origin } });
      await fetch(`${server.url}/api/agents`);
      const session = await openSession(server);
      const own = await fetch(server.hopUrl, {
        method: 'POST',
        headers: session.headers({ origin: new URL(server.url).origin, 'content-type': 'application/json' }),
        body: '{}',
      });
      assert.equal(own.status, 400, 'past the origin check: the body is what is wrong');
      assert.deepEqual(refusals(server), []);
    } finally {
      await server.close();
    }
  });
});
