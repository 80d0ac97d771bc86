import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentsResponse } from '@canvas-ai/protocol';
import { sharedFixtures, startTestServer, type TestServer } from './support/harness.js';

const fixtures = await sharedFixtures();

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
