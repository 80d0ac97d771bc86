import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CsrfTokens } from '../src/csrf.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  startTestServer,
  type TestServer,
  type JsonBody,
} from './support/harness.js';

const HERO = 'Add a hero for my bakery, Crumb & Co.';

describe('sessions and CSRF over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function post(headers: Record<string, string>, body: unknown) {
    const reply = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: reply.status, body: (await reply.json()) as JsonBody };
  }

  it('gives a token bound to an HttpOnly, SameSite=Lax session cookie', async () => {
    const reply = await fetch(`${server.url}/api/token`);
    const cookie = reply.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^canvas_ai_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; /, 'an id and its signature');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    const body = (await reply.json()) as JsonBody;
    assert.equal(body.header, 'X-CSRF-Token');
    assert.ok(body.token.length > 20);
  });

  it('keeps the session of its cookie and gives a fresh token of it', async () => {
    const session = await openSession(server);
    const again = await fetch(`${server.url}/api/token`, { headers: { cookie: session.cookie } });
    assert.equal(again.headers.get('set-cookie'), null);
    const token = ((await again.json()) as JsonBody).token;
    const hop = await post(
      { cookie: session.cookie, 'x-csrf-token': token },
      firstHop(`fresh-${crypto.randomUUID()}`, 'Hi'),
    );
    assert.equal(hop.status, 200, 'the fresh token is the session’s');
  });

  it('keeps no session it did not mint: a planted cookie value gets a new session, and a hop with it 403', async () => {
    const genuine = await openSession(server);
    const signature = genuine.cookie.split('.')[1]!;
    for (const planted of ['A'.repeat(43), `${'A'.repeat(43)}.${signature}`, `${genuine.id}.${'B'.repeat(43)}`]) {
      const token = await fetch(`${server.url}/api/token`, { headers: { cookie: `canvas_ai_session=${planted}` } });
      const minted = token.headers.get('set-cookie') ?? '';
      assert.match(minted, /^canvas_ai_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; /, 'a session of its own');
      assert.notEqual(minted.split('=')[1]!.split('.')[0], planted.slice(0, 43), 'not the planted id');
      const { token: issued } = (await token.json()) as { token: string };
      const hop = await post(
        { cookie: `canvas_ai_session=${planted}`, 'x-csrf-token': issued },
        firstHop(`planted-${crypto.randomUUID()}`, 'Hi'),
      );
      assert.equal(hop.status, 403, 'the token is the new session’s, not the planted one’s');
    }
  });

  it('uses a Secure __Host- cookie with secureCookies, and then ignores a plain one', async () => {
    const secure = await startTestServer({ security: { secureCookies: true } });
    try {
      const reply = await fetch(`${secure.url}/api/token`);
      const cookie = reply.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^__Host-canvas_ai_session=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      const { token } = (await reply.json()) as { token: string };
      const value = cookie.split(';')[0]!.split('=')[1]!;
      const hop = (name: string) =>
        fetch(secure.hopUrl, {
          method: 'POST',
          headers: { cookie: `${name}=${value}`, 'x-csrf-token': token, 'content-type': 'application/json' },
          body: JSON.stringify(firstHop(`secure-${crypto.randomUUID()}`, 'Hi')),
        });
      assert.equal((await hop('__Host-canvas_ai_session')).status, 200);
      assert.equal((await hop('canvas_ai_session')).status, 403, 'a cookie a subdomain could set is no session');
    } finally {
      await secure.close();
    }
  });

  it('refuses a token older than its lifetime (403), and takes the fresh one the client fetches then', async () => {
    const secret = 'a test secret of sixteen bytes or more';
    const dated = await startTestServer({ security: { secret, tokenTtlMs: 60_000 } });
    try {
      const session = await openSession(dated);
      const old = await new CsrfTokens(secret, { now: () => Date.now() - 120_000 }).tokenFor(session.id);
      const body = firstHop(`dated-${crypto.randomUUID()}`, 'Hi');
      const send = (token: string) =>
        fetch(dated.hopUrl, {
          method: 'POST',
          headers: { cookie: session.cookie, 'x-csrf-token': token, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const refused = await send(old);
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as JsonBody).error.code, 'csrf_invalid');
      const fresh = (await (
        await fetch(`${dated.url}/api/token`, { headers: { cookie: session.cookie } })
      ).json()) as JsonBody;
      assert.equal((await send(fresh.token)).status, 200);
    } finally {
      await dated.close();
    }
  });

  it('refuses a hop without a token, with a wrong token, or with another session’s token (403), before any model call', async () => {
    const alice = await openSession(server);
    const bob = await openSession(server);
    const body = firstHop(`csrf-${crypto.randomUUID()}`, HERO, { agent: 'page_builder' });
    const hopsBefore = server.logs.filter((entry) => entry.event === 'hop').length;
    const attempts: Array<Record<string, string>> = [
      { cookie: alice.cookie },
      { cookie: alice.cookie, 'x-csrf-token': 'forged' },
      { cookie: alice.cookie, 'x-csrf-token': bob.token },
      { 'x-csrf-token': alice.token },
      {},
    ];
    for (const headers of attempts) {
      const reply = await post(headers, body);
      assert.equal(reply.status, 403);
      assert.equal(reply.body.error.code, 'csrf_invalid');
    }
    assert.equal(server.logs.filter((entry) => entry.event === 'hop').length, hopsBefore, 'nothing executed');
    assert.equal((await post(alice.headers(), body)).status, 200, 'the right token works');
  });

  it('refuses a cancel without the token (403) and the turn carries on', async () => {
    const session = await openSession(server);
    const id = `csrf-cancel-${crypto.randomUUID()}`;
    await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const reply = await fetch(`${server.url}/api/hop/${id}`, { method: 'DELETE', headers: { cookie: session.cookie } });
    assert.equal(reply.status, 403);
    assert.equal((await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 200);
  });

  it('G5: refuses a request carrying two session cookies (a planted one signed for the attacker) with 403, wherever the session is read', async () => {
    const victim = await openSession(server);
    // The attacker takes a session of their own (any client can), and a page on another port of this host plants it
    // for Path=/api: cookies ignore ports, and the browser sends the longer-path cookie first.
    const attacker = await openSession(server);
    const both = `${attacker.cookie}; ${victim.cookie}`;
    const token = await fetch(`${server.url}/api/token`, { headers: { cookie: both } });
    assert.equal(token.status, 403, 'no token of either session');
    assert.equal(token.headers.get('set-cookie'), null, 'no session minted over the planted one');
    const refused = (await token.json()) as JsonBody;
    assert.equal(refused.error.code, 'csrf_invalid');
    assert.match(refused.message, /2 canvas_ai_session cookies.*[Cc]lear this site's cookies/);
    for (const csrf of [attacker.token, victim.token]) {
      const hop = await post({ cookie: both, 'x-csrf-token': csrf }, firstHop(`tossed-${crypto.randomUUID()}`, 'Hi'));
      assert.equal(hop.status, 403, 'no turn runs in either session');
      assert.equal(hop.body.error.code, 'csrf_invalid');
    }
    const requestId = `tossed-${crypto.randomUUID()}`;
    assert.equal((await victim.hop(firstHop(requestId, HERO))).status, 200, 'the victim’s own cookie alone works');
    const status = await fetch(`${server.url}/api/hop/${requestId}`, { headers: { cookie: both } });
    assert.equal(status.status, 403);
    const cancel = await fetch(`${server.url}/api/hop/${requestId}`, {
      method: 'DELETE',
      headers: { cookie: both, 'x-csrf-token': victim.token },
    });
    assert.equal(cancel.status, 403);
    const agents = await fetch(`${server.url}/api/agents`, { headers: { cookie: both } });
    assert.equal(agents.status, 200, 'an endpoint without a session reads no cookie');
  });

  it('never lets one session resume or cancel another session’s turn', async () => {
    const alice = await openSession(server);
    const mallory = await openSession(server);
    const id = `shared-id-${crypto.randomUUID()}`;
    await alice.hop(firstHop(id, HERO, { agent: 'page_builder' }));

    const resume = await mallory.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(resume.status, 410, 'the turn does not exist in another session');
    const replay = await mallory.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    assert.equal(replay.status, 200, 'the same request_id starts a separate turn in another session');
    assert.equal((await mallory.cancel(id)).body.cancelled, true, 'it cancels only its own turn');

    const hop2 = await alice.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(hop2.status, 200, "alice's turn is untouched");
    assert.equal(hop2.body.outputs.length, 1);
  });
});

describe('the other endpoints', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('GET /healthz says ok and the protocol', async () => {
    const reply = await fetch(`${server.url}/healthz`);
    assert.deepEqual(await reply.json(), { status: 'ok', protocol: 'canvas-ai/1' });
  });

  it('GET /api/agents lists the main agent and the picker’s agents', async () => {
    const body = (await (await fetch(`${server.url}/api/agents`)).json()) as JsonBody;
    assert.equal(body.main_agent.id, 'qa');
    assert.deepEqual(
      body.tools.map((agent: { id: string }) => agent.id),
      ['page_builder', 'copy_editor', 'careful_builder'],
    );
    assert.equal(body.tools[0].label, 'Page builder');
  });

  it('answers an unknown path with 404 and GET /api/hop with 405, in the error format', async () => {
    const missing = await fetch(`${server.url}/api/nothing`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as JsonBody).error.code, 'not_found');
    const wrongMethod = await fetch(server.hopUrl);
    assert.equal(wrongMethod.status, 405);
    assert.equal(((await wrongMethod.json()) as JsonBody).error.code, 'method_not_allowed');
  });

  it('answers every known path with another method with 405 method_not_allowed and the methods it allows', async () => {
    const cases: Array<[string, string, string]> = [
      ['POST', '/api/token', 'GET'],
      ['POST', '/api/agents', 'GET'],
      ['DELETE', '/healthz', 'GET'],
      ['POST', '/api/hop/some-turn', 'GET, DELETE'],
      ['PUT', '/api/hop/some-turn', 'GET, DELETE'],
      ['PUT', '/api/hop', 'POST'],
    ];
    for (const [method, path, allowed] of cases) {
      const reply = await fetch(`${server.url}${path}`, { method });
      assert.equal(reply.status, 405, `${method} ${path}`);
      assert.equal(((await reply.json()) as JsonBody).error.code, 'method_not_allowed', `${method} ${path}`);
      assert.equal(reply.headers.get('allow'), allowed, `${method} ${path}`);
    }
    assert.equal((await fetch(`${server.url}/api/token`, { method: 'HEAD' })).status, 200, 'HEAD goes with GET');
  });

  it('answers a message no scenario knows in one hop, saying it is scripted and how to configure a real model', async () => {
    const session = await openSession(server);
    const reply = await session.hop(firstHop('unknown-1', 'What is the weather today?'));
    assert.equal(reply.status, 200);
    assert.equal(reply.body.should_continue, false);
    assert.equal(reply.body.finish_reason, 'answer');
    assert.match(reply.body.message, /scripted/);
    assert.match(reply.body.message, /How do I get the assistant to change my page\?/, 'lists what it knows');
    assert.match(reply.body.message, /CANVAS_AI_OPENAI_MODEL/);
    assert.equal(
      reply.body.message.split('To talk to a real model').length - 1,
      1,
      `one way to a real model, this server's own: ${reply.body.message}`,
    );
    assert.equal(reply.body.progress, '');
  });

  it('serves static files through the optional handler, and still 404s the rest', async () => {
    const own = await startTestServer({
      staticFiles: (request) =>
        new URL(request.url).pathname === '/'
          ? new Response('<h1>editor</h1>', { headers: { 'content-type': 'text/html' } })
          : undefined,
    });
    try {
      assert.equal(await (await fetch(`${own.url}/`)).text(), '<h1>editor</h1>');
      assert.equal((await fetch(`${own.url}/missing.js`)).status, 404);
    } finally {
      await own.close();
    }
  });
});

describe('serving a folder on the same origin', () => {
  it('serves files of the --static folder and keeps the API in front', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { staticDirectory } = await import('../src/node.js');
    const dir = await mkdtemp(join(tmpdir(), 'canvas-ai-static-'));
    await writeFile(join(dir, 'index.html'), '<title>demo</title>');
    const server = await startTestServer({ staticFiles: staticDirectory(dir) });
    try {
      assert.equal(await (await fetch(`${server.url}/`)).text(), '<title>demo</title>');
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.equal((await fetch(`${server.url}/nope.css`)).status, 404);
    } finally {
      await server.close();
    }
  });
});

describe('deployments with their own auth', () => {
  it('scopes turns by the sessionId hook, and CSRF can be turned off', async () => {
    const server = await startTestServer({
      security: { csrf: false, sessionId: (request) => request.headers.get('x-user') ?? undefined },
    });
    try {
      const as = (user: string) => ({ 'content-type': 'application/json', 'x-user': user });
      const hop = (user: string, body: unknown) =>
        fetch(server.hopUrl, { method: 'POST', headers: as(user), body: JSON.stringify(body) });
      assert.equal(
        (await hop('ada', firstHop('own-1', HERO, { agent: 'page_builder' }))).status,
        200,
        'no token needed',
      );
      assert.equal(
        (await hop('bob', laterHop('own-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status,
        410,
        'another user has no such turn',
      );
      assert.equal((await hop('ada', laterHop('own-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 200);
      const anonymous = await fetch(server.hopUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(firstHop('own-2', HERO)),
      });
      assert.equal(anonymous.status, 403, 'no session, no hop');
    } finally {
      await server.close();
    }
  });

  it('with CSRF off and no hook, mints a session cookie on the first hop', async () => {
    const server = await startTestServer({ security: { csrf: false } });
    try {
      const reply = await fetch(server.hopUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(firstHop('own-3', HERO)),
      });
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('set-cookie') ?? '', /^canvas_ai_session=/);
    } finally {
      await server.close();
    }
  });
});
