// Which hosts the server answers to, which origins may change state, what it serves from a folder, and the headers
// every answer carries (spec §4.5), over real HTTP.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allowedHostsFor, staticDirectory } from '../src/node.js';
import { firstHop, openSession, startTestServer, type TestServer } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

/** A raw HTTP exchange with any Host header (fetch would not send another host's name to this address). */
function exchange(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(options.path, url), {
      method: options.method ?? 'GET',
      headers: options.headers,
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('the host a request names', () => {
  let cli: ServerProcess;
  let port: string;
  before(async () => {
    cli = await startServerProcess([]);
    port = new URL(cli.url).port;
  });
  after(() => cli.kill());

  it('is refused with 421 host_not_allowed when it is not a loopback name, by default on loopback: no session, no token', async () => {
    const rebound = await exchange(cli.url, { path: '/api/token', headers: { host: `attacker.example:${port}` } });
    assert.equal(rebound.status, 421);
    assert.equal(JSON.parse(rebound.body).error.code, 'host_not_allowed');
    assert.equal(rebound.headers['set-cookie'], undefined, 'no session was minted');
    assert.doesNotMatch(rebound.body, /attacker/, 'the host is not echoed');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
      assert.equal((await exchange(cli.url, { path: '/api/token', headers: { host } })).status, 200, host);
    }
  });

  it('refuses a hop for another host even with a valid session and token', async () => {
    const session = await openSession(cli);
    const hop = await exchange(cli.url, {
      method: 'POST',
      path: '/api/hop',
      headers: {
        ...session.headers({ 'content-type': 'application/json' }),
        host: `attacker.example:${port}`,
        origin: `http://attacker.example:${port}`,
      },
      body: JSON.stringify(firstHop('rebound-1', 'How do I get the assistant to change my page?')),
    });
    assert.equal(hop.status, 421);
    assert.equal(JSON.parse(hop.body).error.code, 'host_not_allowed');
  });

  it('answers /healthz whatever the host (a load balancer asks by address)', async () => {
    assert.equal((await exchange(cli.url, { path: '/healthz', headers: { host: `10.1.2.3:${port}` } })).status, 200);
  });

  it('takes --allowed-hosts: a domain with its subdomains, nothing else', async () => {
    const named = await startServerProcess(['--allowed-hosts', '.example.com,localhost']);
    try {
      const at = (host: string) => exchange(named.url, { path: '/api/agents', headers: { host } });
      assert.equal((await at('editor.example.com')).status, 200);
      assert.equal((await at('example.com')).status, 200);
      assert.equal((await at('evil-example.com')).status, 421);
      assert.equal((await at('127.0.0.1')).status, 421, 'the list replaces the default');
      assert.equal((await at('localhost')).status, 200);
    } finally {
      await named.kill();
    }
  });

  it('defaults to the loopback names on loopback, and adds the address and the machine name elsewhere', () => {
    assert.deepEqual(allowedHostsFor('127.0.0.1'), ['localhost', '127.0.0.1', '[::1]']);
    assert.deepEqual(allowedHostsFor('::1'), ['localhost', '127.0.0.1', '[::1]']);
    const lan = allowedHostsFor('10.0.0.5');
    assert.ok(lan.includes('10.0.0.5') && lan.includes('localhost') && lan.length === 5, lan.join(' '));
    const all = allowedHostsFor('0.0.0.0');
    assert.ok(all.includes('127.0.0.1') && all.length >= 4, all.join(' '));
  });
});

describe('the origin of a state-changing request', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ security: { csrf: false } });
  });
  after(() => server.close());

  it('refuses a cross-site form POST with 403 origin_not_allowed even with CSRF off, before any session is made', async () => {
    const form = new FormData();
    form.append('request', JSON.stringify(firstHop('forged-1', 'How do I get the assistant to change my page?')));
    const forged = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      body: form,
    });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'origin_not_allowed');
    assert.equal(forged.headers.get('set-cookie'), null);
    const cancel = await fetch(`${server.url}/api/hop/forged-1`, { method: 'DELETE', headers: { origin: 'null' } });
    assert.equal(cancel.status, 403);
  });

  it('lets the page of its own origin and clients that send no Origin through', async () => {
    const own = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify(firstHop('own-1', 'How do I get the assistant to change my page?')),
    });
    assert.equal(own.status, 200);
    const noOrigin = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(firstHop('own-2', 'How do I get the assistant to change my page?')),
    });
    assert.equal(noOrigin.status, 200);
  });

  it('lets an allowed origin through (a proxy whose public origin is not the host it forwards)', async () => {
    const proxied = await startTestServer({ security: { allowedOrigins: ['https://editor.example.com'] } });
    try {
      const session = await openSession(proxied);
      const hop = await fetch(proxied.hopUrl, {
        method: 'POST',
        headers: session.headers({ origin: 'https://editor.example.com', 'content-type': 'application/json' }),
        body: JSON.stringify(firstHop('proxied-1', 'How do I get the assistant to change my page?')),
      });
      assert.equal(hop.status, 200);
    } finally {
      await proxied.close();
    }
  });
});

describe('static files and the headers of every answer', () => {
  let root: string;
  let outside: string;
  let server: TestServer;
  before(async () => {
    outside = await mkdtemp(join(tmpdir(), 'canvas-ai-outside-'));
    await writeFile(join(outside, 'secret.txt'), 'SECRET OUTSIDE THE ROOT');
    root = await mkdtemp(join(tmpdir(), 'canvas-ai-static-'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>demo</title>');
    await writeFile(join(root, 'app.js'), 'console.log(1)');
    await writeFile(join(root, '.env'), 'CANVAS_AI_SECRET=hunter2hunter2hunter2');
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git', 'config'), '[remote] url = secret');
    await symlink(join(outside, 'secret.txt'), join(root, 'secret-link.txt'));
    await symlink(outside, join(root, 'outside-dir'));
    await mkdir(join(root, 'linked-index'));
    await symlink(join(outside, 'secret.txt'), join(root, 'linked-index', 'index.html'));
    server = await startTestServer({ staticFiles: staticDirectory(root) });
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('never serves a dotfile or a file under a dot folder', async () => {
    for (const path of ['/.env', '/./.env', '/.%65nv', '/.git/config', '/api/../.env']) {
      const reply = await exchange(server.url, { path });
      assert.equal(reply.status, 404, path);
      assert.doesNotMatch(reply.body, /hunter2|secret/, path);
    }
  });

  it('never follows a symlink out of its folder, to a file, a folder or a folder index', async () => {
    for (const path of ['/secret-link.txt', '/outside-dir/secret.txt', '/linked-index/', '/linked-index']) {
      const reply = await exchange(server.url, { path });
      assert.equal(reply.status, 404, path);
      assert.doesNotMatch(reply.body, /SECRET OUTSIDE/, path);
    }
  });

  it('serves the page with nosniff, no framing by other sites and a policy keeping images and scripts on the origin', async () => {
    const page = await exchange(server.url, { path: '/' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    const policy = String(page.headers['content-security-policy']);
    assert.match(policy, /frame-ancestors 'self'/);
    assert.match(policy, /img-src 'self' data: blob:;/);
    assert.match(policy, /script-src 'self';/);
    const range = await exchange(server.url, { path: '/app.js', headers: { range: 'bytes=0-6' } });
    assert.equal(range.status, 206, 'ranges still work');
    assert.equal(range.body, 'console');
  });

  it('G10: answers HEAD of a static file with the same headers as GET (the static policy, not the API’s)', async () => {
    for (const path of ['/', '/app.js']) {
      const get = await exchange(server.url, { path });
      const head = await exchange(server.url, { path, method: 'HEAD' });
      assert.equal(head.status, 200, path);
      assert.equal(head.body, '', path);
      for (const name of ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy']) {
        assert.equal(head.headers[name], get.headers[name], `${path} ${name}`);
      }
      assert.equal(head.headers['x-frame-options'], 'SAMEORIGIN', path);
      assert.equal(head.headers['content-type'], get.headers['content-type'], path);
    }
  });

  it('answers the protocol with nosniff and a policy that allows nothing, errors included', async () => {
    for (const [path, status] of [
      ['/api/agents', 200],
      ['/api/nothing', 404],
    ] as const) {
      const reply = await exchange(server.url, { path });
      assert.equal(reply.status, status);
      assert.equal(reply.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(reply.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", path);
      assert.equal(reply.headers['x-frame-options'], 'DENY', path);
    }
  });
});
