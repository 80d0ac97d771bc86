import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { AdminSettingsResponse, AgentsResponse, type AgentsConfig, applyOutputs } from '@canvas-ai/protocol';
import { equalBytes } from '../src/admin.js';
import { createApp } from '../src/app.js';
import { ConfigError } from '../src/config-error.js';
import { FIXTURES_DIR } from '../src/config.js';
import { LiveAgents } from '../src/live-agents.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { eventually } from './support/eventually.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  type JsonBody,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
} from './support/harness.js';
import { startCluster } from './support/instances.js';
import { startRedisServer } from './support/redis-server.js';
import { startServerProcess } from './support/server-process.js';

const fixtures = await sharedFixtures();
const TOKEN = 'a-long-admin-token-for-tests-0123456789';
const HERO = 'Add a hero for my bakery, Crumb & Co.';
/** A third party's agent, defined but left off the canvas allow-list. */
const VENDOR = { label: 'Vendor', description: 'A third party.', system_prompt: 'Sell.' };
const WITH_VENDOR = {
  ...fixtures.agents,
  agents: { ...fixtures.agents.agents, vendor: { ...fixtures.agents.agents.qa!, ...VENDOR } },
} as AgentsConfig;

/** A request of the admin surface, with the admin token unless `headers` say otherwise. */
function admin(
  server: { url: string },
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${server.url}/api/admin/settings`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** The agents `GET /api/agents` answers now: the main agent's id and the picker's ids. */
async function offered(server: { url: string }): Promise<{ main: string; tools: string[] }> {
  const body = AgentsResponse.parse(await (await fetch(`${server.url}/api/agents`)).json());
  return { main: body.main_agent.id, tools: body.tools.map((agent) => agent.id) };
}

describe('GET /api/agents carries its version (spec §3.1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers the agents with an ETag, and a client that asks without If-None-Match (an older one) as before', async () => {
    const answer = await fetch(`${server.url}/api/agents`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(answer.headers.get('cache-control'), 'no-cache');
    const body = AgentsResponse.parse(await answer.json());
    assert.equal(body.main_agent.id, 'qa');
  });

  it('answers 304 without a body when If-None-Match names the current version, weak or in a list', async () => {
    const etag = (await fetch(`${server.url}/api/agents`)).headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${server.url}/api/agents`, { headers: { 'if-none-match': ifNoneMatch } });
      assert.equal(again.status, 304, ifNoneMatch);
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(await again.text(), '');
    }
    const stale = await fetch(`${server.url}/api/agents`, { headers: { 'if-none-match': '"an-older-version"' } });
    assert.equal(stale.status, 200);
  });

  it('gives other agents another version', async () => {
    const other = await startTestServer({ agents: { ...fixtures.agents, tools: ['page_builder'] } });
    try {
      const theirs = (await fetch(`${other.url}/api/agents`)).headers.get('etag');
      const ours = (await fetch(`${server.url}/api/agents`)).headers.get('etag');
      assert.notEqual(theirs, ours);
    } finally {
      await other.close();
    }
  });
});

describe('the admin surface (spec §19): off unless the operator sets a token', () => {
  it('does not exist without an admin token: 404 for every method, with or without a credential', async () => {
    const server = await startTestServer();
    try {
      for (const method of ['GET', 'PUT']) {
        const answer = await admin(server, { method, body: method === 'PUT' ? { main_agent: 'qa' } : undefined });
        assert.equal(answer.status, 404, method);
        assert.equal(((await answer.json()) as JsonBody).error.code, 'not_found');
      }
    } finally {
      await server.close();
    }
  });

  it('refuses to start with a token shorter than 16 characters', async () => {
    assert.throws(
      () =>
        createApp({
          agents: fixtures.agents,
          catalog: fixtures.catalog,
          provider: new ScriptedProvider([]),
          admin: { token: 'short' },
        }),
      (error: Error) => error instanceof ConfigError && /CANVAS_AI_ADMIN_TOKEN .*at least 16/.test(error.message),
    );
  });
});

describe('the admin surface (spec §19): its security', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ agents: WITH_VENDOR, admin: { token: TOKEN, requestsPerMinute: 1000 } });
  });
  after(() => server.close());

  it('answers 401 without a credential, with a wrong one, and with the session cookie and CSRF token alone; nothing changes', async () => {
    const before = await offered(server);
    const session = await openSession(server);
    const change = { main_agent: 'page_builder', tools: [] };
    const attempts: Array<[string, Record<string, string>]> = [
      ['no credential', { authorization: '' }],
      ['a wrong token', { authorization: `Bearer ${TOKEN}x` }],
      ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['another scheme', { authorization: `Basic ${btoa(`admin:${TOKEN}`)}` }],
      ['the session cookie and CSRF token', { ...session.headers(), authorization: '' }],
    ];
    for (const [what, headers] of attempts) {
      const answer = await admin(server, { method: 'PUT', body: change, headers });
      assert.equal(answer.status, 401, what);
      assert.equal(((await answer.json()) as JsonBody).error.code, 'unauthorized', what);
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer /, what);
    }
    assert.equal((await admin(server, { headers: { authorization: '' } })).status, 401, 'GET without a credential');
    assert.deepEqual(await offered(server), before);
    assert.ok(server.logs.some((entry) => entry.event === 'admin_refused' && entry.reason === 'wrong credential'));
  });

  it('refuses a request from another origin, even with the token (403), and grants it no CORS', async () => {
    const before = await offered(server);
    for (const method of ['PUT', 'GET', 'OPTIONS']) {
      const answer = await admin(server, {
        method,
        body: method === 'PUT' ? { main_agent: 'page_builder', tools: [] } : undefined,
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' },
      });
      assert.equal(answer.status, 403, method);
      assert.equal(answer.headers.get('access-control-allow-origin'), null, method);
    }
    const own = await admin(server, { headers: { origin: new URL(server.url).origin } });
    assert.equal(own.status, 200, 'its own origin is served');
    assert.deepEqual(await offered(server), before);
  });

  it('compares in constant time: every byte is read whatever byte differs first', () => {
    /** The bytes `equalBytes` reads of a 32-byte digest that differs from `base` at `at`. */
    const reads = (at: number) => {
      const base = new Uint8Array(32).fill(7);
      const other = new Uint8Array(32).fill(7);
      other[at] = 8;
      let count = 0;
      const counted = new Proxy(other, {
        get(target, key) {
          if (typeof key === 'string' && /^\d+$/.test(key)) count += 1;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      assert.equal(equalBytes(base, counted), false);
      return count;
    };
    assert.equal(reads(0), 32);
    assert.equal(reads(31), 32);
    assert.equal(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
  });

  it('answers the settings and the canvas agents only, a third party left out', async () => {
    const answer = await admin(server);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const body = AdminSettingsResponse.parse(await answer.json());
    assert.deepEqual(body.settings, { main_agent: 'qa', tools: ['page_builder', 'copy_editor', 'careful_builder'] });
    assert.deepEqual(
      body.canvas_agents.map((agent) => agent.id),
      ['qa', 'page_builder', 'copy_editor', 'careful_builder'],
    );
  });

  it('refuses every broken rule with its message, one issue each, and changes nothing', async () => {
    const before = await offered(server);
    const refused: Array<[unknown, string[]]> = [
      [
        { main_agent: 'qa', tools: ['qa'] },
        ['tools.0: "qa" is the main agent; remove it from tools (the main agent answers when nothing is picked)'],
      ],
      [
        { main_agent: 'vendor', tools: [] },
        [
          'main_agent: main_agent "vendor" is not a canvas agent; add it to canvas_agents or pick one of: qa, page_builder, copy_editor, careful_builder',
        ],
      ],
      [
        { main_agent: 'qa', tools: ['ghost', 'copy_editor', 'copy_editor'] },
        [
          'tools.0: tools names "ghost", which is not defined under agents (defined: qa, page_builder, copy_editor, careful_builder, vendor)',
          'tools.2: "copy_editor" is listed twice in tools; list it once',
        ],
      ],
      [{ tools: [] }, ['main_agent: Invalid input: expected string, received undefined']],
    ];
    for (const [body, lines] of refused) {
      const answer = await admin(server, { method: 'PUT', body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      const error = ((await answer.json()) as JsonBody).error;
      assert.equal(error.code, 'invalid_request');
      assert.deepEqual(
        error.issues.map((issue: { path: string; message: string }) => `${issue.path}: ${issue.message}`),
        lines,
      );
    }
    const notJson = await fetch(`${server.url}/api/admin/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{',
    });
    assert.equal(notJson.status, 400);
    assert.deepEqual(await offered(server), before);
  });
});

describe('the admin surface (spec §19): its own rate limit', () => {
  it('answers 429 with Retry-After past its requests per minute, even with the right token', async () => {
    const server = await startTestServer({ admin: { token: TOKEN, requestsPerMinute: 3 } });
    try {
      const statuses = [];
      for (let index = 0; index < 3; index++) statuses.push((await admin(server)).status);
      const over = await admin(server);
      assert.deepEqual(statuses, [200, 200, 200]);
      assert.equal(over.status, 429);
      assert.equal(((await over.json()) as JsonBody).error.code, 'quota_exceeded');
      assert.ok(Number(over.headers.get('retry-after')) > 0);
      assert.equal((await fetch(`${server.url}/api/agents`)).status, 200, 'the rest of the server is not limited');
    } finally {
      await server.close();
    }
  });
});

describe('settings changed while the server runs', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ admin: { token: TOKEN } });
  });
  after(() => server.close());

  it('takes new settings: GET /api/agents and the next message follow, under a new ETag', async () => {
    const etag = (await fetch(`${server.url}/api/agents`)).headers.get('etag');
    const saved = await admin(server, { method: 'PUT', body: { main_agent: 'page_builder', tools: ['copy_editor'] } });
    assert.equal(saved.status, 200);
    assert.deepEqual(AdminSettingsResponse.parse(await saved.json()).settings, {
      main_agent: 'page_builder',
      tools: ['copy_editor'],
    });
    const now = await fetch(`${server.url}/api/agents`, { headers: { 'if-none-match': etag! } });
    assert.equal(now.status, 200);
    assert.notEqual(now.headers.get('etag'), etag);
    assert.deepEqual(await offered(server), { main: 'page_builder', tools: ['copy_editor'] });

    const session = await openSession(server);
    const hop1 = await session.hop(firstHop(`main-${crypto.randomUUID()}`, HERO));
    assert.equal(hop1.status, 200);
    assert.equal(hop1.body.agent.id, 'page_builder');
    const picked = await session.hop(firstHop(`picked-${crypto.randomUUID()}`, HERO, { agent: 'qa' }));
    assert.equal(picked.status, 400, 'qa is no longer offered');
    assert.equal(picked.body.error.code, 'unknown_agent');
  });

  it('lets a turn in flight keep its agent to its end; the next message uses the new settings', async () => {
    await admin(server, { method: 'PUT', body: { main_agent: 'page_builder', tools: ['copy_editor'] } });
    const session = await openSession(server);
    // A main-agent turn (no agent named) and a picked one, both of two hops, started under the old settings.
    const mainTurn = `main-${crypto.randomUUID()}`;
    const mainHop1 = await session.hop(firstHop(mainTurn, HERO));
    assert.equal(mainHop1.body.should_continue, true);
    await admin(server, { method: 'PUT', body: { main_agent: 'qa', tools: ['page_builder'] } });
    const pickedTurn = `picked-${crypto.randomUUID()}`;
    const pickedHop1 = await session.hop(firstHop(pickedTurn, HERO, { agent: 'page_builder' }));
    assert.equal(pickedHop1.body.should_continue, true);
    await admin(server, { method: 'PUT', body: { main_agent: 'qa', tools: ['copy_editor'] } });

    for (const [turn, hop1, agent] of [
      [mainTurn, mainHop1, undefined],
      [pickedTurn, pickedHop1, 'page_builder'],
    ] as const) {
      const { response } = await runToItsEnd(session, turn, hop1.body, agent);
      assert.equal(response.finish_reason, 'answer');
    }
    const next = await session.hop(firstHop(`after-${crypto.randomUUID()}`, 'What can this editor do?'));
    assert.equal(next.body.agent.id, 'qa', 'the next message goes to the new main agent');
  });

  it('answers a repeated hop with its stored response after its agent left the picker, hop 1 and the last alike', async () => {
    await admin(server, {
      method: 'PUT',
      body: { main_agent: 'qa', tools: ['page_builder', 'copy_editor', 'careful_builder'] },
    });
    const session = await openSession(server);
    const turn = `repeat-${crypto.randomUUID()}`;
    const hop1 = await session.hop(firstHop(turn, HERO, { agent: 'page_builder' }));
    assert.equal(hop1.status, 200);
    assert.equal(hop1.body.should_continue, true);
    await admin(server, { method: 'PUT', body: { main_agent: 'qa', tools: ['copy_editor'] } });

    const again = await session.hop(firstHop(turn, HERO, { agent: 'page_builder' }));
    assert.equal(again.status, 200, `a lost hop 1 sent again: ${JSON.stringify(again.body.error)}`);
    assert.deepEqual(again.body, hop1.body, 'the stored response, nothing run again');
    const fresh = await session.hop(firstHop(`new-${crypto.randomUUID()}`, HERO, { agent: 'page_builder' }));
    assert.equal(fresh.body.error?.code, 'unknown_agent', 'a new turn takes only what is offered now');

    const { hop, response, layout } = await runToItsEnd(session, turn, hop1.body, 'page_builder');
    await admin(server, { method: 'PUT', body: { main_agent: 'copy_editor', tools: ['qa'] } });
    const last = await session.hop(laterHop(turn, hop, layout, { agent: 'page_builder' }));
    assert.equal(last.status, 200, 'the final response, repeated');
    assert.deepEqual(last.body, response);
  });
});

/**
 * Sends the hops after hop 1 of `turn` until it ends, each with the layout its outputs made and `agent` (none: the
 * field left out); every hop must answer 200 with the page builder as the turn's agent.
 */
async function runToItsEnd(
  session: Awaited<ReturnType<typeof openSession>>,
  turn: string,
  hop1: JsonBody,
  agent: string | undefined,
): Promise<{ hop: number; response: JsonBody; layout: unknown }> {
  let hop = 1;
  let response = hop1;
  let layout: unknown = EMPTY_LAYOUT;
  while (response.should_continue) {
    hop += 1;
    layout = applyAll(layout, response.outputs);
    const next = await session.hop(laterHop(turn, hop, layout, agent ? { agent } : {}));
    assert.equal(next.status, 200, `${turn} hop ${hop}: ${JSON.stringify(next.body.error)}`);
    assert.equal(next.body.agent.id, 'page_builder', `${turn} hop ${hop} keeps its agent`);
    response = next.body;
  }
  return { hop, response, layout };
}

/** The layout after a response's outputs (the tests' own host). */
function applyAll(layout: unknown, outputs: JsonBody[]): unknown {
  return applyOutputs({ layout: layout as never, page: {} }, outputs).layout;
}

describe('settings shared by two instances on Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  before(async () => {
    redis = await startRedisServer();
  });
  after(() => redis.close());

  it('agree: a change saved on one instance is what the other answers (how soon: the LiveAgents test)', async () => {
    const cluster = await startCluster(redis.url, 2, () => ({ admin: { token: TOKEN } }));
    try {
      const [one, two] = cluster.instances as [TestServer, TestServer];
      assert.deepEqual(await offered(two), { main: 'qa', tools: ['page_builder', 'copy_editor', 'careful_builder'] });
      const saved = await admin(one, { method: 'PUT', body: { main_agent: 'copy_editor', tools: ['qa'] } });
      assert.equal(saved.status, 200);
      const start = performance.now();
      // How soon is the unit test's below (a clock the test moves); a timed assertion here would only measure the
      // machine. The figure is printed for the record.
      await eventually(async () => assert.equal((await offered(two)).main, 'copy_editor'), 150, 20);
      console.log(`two instances agreed ${(performance.now() - start).toFixed(0)} ms after the save`);
      assert.deepEqual(await offered(two), { main: 'copy_editor', tools: ['qa'] });
      assert.equal(
        (await fetch(`${one.url}/api/agents`)).headers.get('etag'),
        (await fetch(`${two.url}/api/agents`)).headers.get('etag'),
        'one version on both',
      );
    } finally {
      await cluster.close();
    }
  });
});

describe('LiveAgents: how soon instances sharing a store agree', () => {
  it('answers from its last read for refreshMs, then reads again: a save elsewhere is in force within that', async () => {
    let now = 0;
    const store = new MemoryTurnStore();
    const options = { store, log: () => undefined, refreshMs: 500, now: () => now };
    const one = new LiveAgents(fixtures.agents, options);
    const two = new LiveAgents(fixtures.agents, options);
    assert.equal((await two.current()).main_agent, 'qa');

    now = 100;
    await one.save({ main_agent: 'copy_editor', tools: ['qa'] });
    assert.equal((await one.current()).main_agent, 'copy_editor', 'the instance that saved, at once');
    now = 499;
    assert.equal((await two.current()).main_agent, 'qa', 'the other still answers from its read at 0');
    now = 500;
    assert.deepEqual(
      { main: (await two.current()).main_agent, tools: (await two.current()).tools },
      { main: 'copy_editor', tools: ['qa'] },
      'one refresh after its last read, it has read the save',
    );
  });
});

describe('the agents file, followed while the CLI runs', () => {
  it('takes a valid change, and keeps the previous config (logging why) when the file breaks a rule', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'canvas-ai-watch-'));
    const file = join(dir, 'agents.yaml');
    const original = parse(await readFile(`${FIXTURES_DIR}agents.yaml`, 'utf8'));
    await writeFile(file, stringify(original));
    const server = await startServerProcess(['--agents', file]);
    try {
      assert.deepEqual(await offered(server), {
        main: 'qa',
        tools: ['page_builder', 'copy_editor', 'careful_builder'],
      });

      await writeFile(file, stringify({ ...original, tools: ['qa', 'ghost'] }));
      const refused = await eventually(async () => {
        const entry = server.logs.find((line) => line.event === 'agents_reload_refused');
        assert.ok(entry);
        return entry;
      });
      assert.deepEqual(
        (refused.problems as string[]).map((line) => line.replace(`${file}: `, '')),
        [
          'tools.0: "qa" is the main agent; remove it from tools (the main agent answers when nothing is picked)',
          'tools.1: tools names "ghost", which is not defined under agents (defined: qa, page_builder, copy_editor, careful_builder)',
        ],
      );
      assert.deepEqual(
        await offered(server),
        { main: 'qa', tools: ['page_builder', 'copy_editor', 'careful_builder'] },
        'kept',
      );

      await writeFile(file, stringify({ ...original, main_agent: 'page_builder', tools: ['copy_editor'] }));
      await eventually(async () =>
        assert.deepEqual(await offered(server), { main: 'page_builder', tools: ['copy_editor'] }),
      );
      assert.ok(server.logs.some((line) => line.event === 'agents_reloaded'));
    } finally {
      await server.kill();
    }
  });

  it('lets a turn in flight run its agent to its end after the file drops that agent altogether', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'canvas-ai-watch-'));
    const file = join(dir, 'agents.yaml');
    const original = parse(await readFile(`${FIXTURES_DIR}agents.yaml`, 'utf8'));
    await writeFile(file, stringify(original));
    const server = await startServerProcess(['--agents', file]);
    try {
      const session = await openSession(server);
      const turn = `dropped-${crypto.randomUUID()}`;
      const hop1 = await session.hop(firstHop(turn, HERO, { agent: 'page_builder' }));
      assert.equal(hop1.status, 200);
      assert.equal(hop1.body.should_continue, true);

      const { page_builder: _dropped, ...others } = original.agents;
      await writeFile(
        file,
        stringify({ ...original, agents: others, tools: ['copy_editor'], canvas_agents: ['qa', 'copy_editor'] }),
      );
      await eventually(async () => assert.deepEqual(await offered(server), { main: 'qa', tools: ['copy_editor'] }));

      const { hop, response } = await runToItsEnd(session, turn, hop1.body, 'page_builder');
      assert.equal(response.finish_reason, 'answer');
      assert.ok(hop >= 3, `the cookie-shop hero takes several hops, took ${hop}`);
      const fresh = await session.hop(firstHop(`new-${crypto.randomUUID()}`, HERO, { agent: 'page_builder' }));
      assert.equal(fresh.body.error?.code, 'unknown_agent', 'the next message uses the new file');
    } finally {
      await server.kill();
    }
  });
});
