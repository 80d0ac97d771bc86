import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runConformance, type ConformanceReport } from '@canvas-ai/conformance';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/node.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { sharedFixtures, startTestServer } from './support/harness.js';
import { RecordingProvider } from './support/providers.js';

// The conformance kit (@canvas-ai/conformance) against the real reference server over HTTP.
const fixtures = await sharedFixtures();

/** The endpoints of a server started on `url`. */
function endpointsOf(url: string) {
  return { endpoint: `${url}/api/hop`, tokenEndpoint: `${url}/api/token`, agentsEndpoint: `${url}/api/agents` };
}

function failures(report: ConformanceReport): string[] {
  return report.results.filter((result) => result.status === 'fail').map((result) => `${result.id}: ${result.why}`);
}

describe('the conformance kit against the reference server', () => {
  it('passes every level-1 and level-2 check, with nothing skipped', async () => {
    // Waits of 8 s, so the kit sits one out (waits.expiry); every other check answers its question at once.
    const server = await startTestServer({ ttl: { waitMs: 8_000 } });
    try {
      const report = await runConformance({ ...endpointsOf(server.url), level: 2 });
      assert.deepEqual(failures(report), []);
      assert.equal(report.skipped, 0);
      assert.equal(report.passed, report.results.length);
      const ids = report.results.map((result) => result.id);
      for (const scenario of fixtures.scenarios)
        assert.ok(ids.includes(`scenario.${scenario.id}`), `scenario ${scenario.id} was played`);
      assert.ok(ids.includes('validation.request-id-missing'), 'the malformed-request table was read');
      assert.deepEqual(new Set(report.results.map((result) => result.level)), new Set([1, 2]));
    } finally {
      await server.close();
    }
  });

  it('passes level 1 with CSRF off and no token endpoint, skipping only what needs a token', async () => {
    const server = await startTestServer({ security: { csrf: false } });
    try {
      const report = await runConformance({ endpoint: `${server.url}/api/hop`, level: 1 });
      assert.deepEqual(failures(report), []);
      const skipped = report.results.filter((result) => result.status === 'skip').map((result) => result.id);
      assert.deepEqual(skipped.sort(), [
        'agents.etag',
        'csrf.cancel-needs-token',
        'csrf.cookie-reaches-endpoints',
        'csrf.missing-header',
        'csrf.no-session',
        'csrf.other-session-token',
        'csrf.unknown-cookie',
        'csrf.wrong-token',
        'schemas.agents-response',
        'schemas.token-response',
      ]);
      assert.ok(report.results.every((result) => result.level === 1));
    } finally {
      await server.close();
    }
  });

  it('sees 409 hop_in_progress from the copies of a hop that arrive while it runs', async () => {
    // The first copy's model decision is held until the server has answered every other copy, so all of them
    // reach the turn while its hop runs, whatever the machine's speed.
    const burst = 6;
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const hold = model.holdNext();
    const app = createApp({ agents: fixtures.agents, catalog: fixtures.catalog, provider: model, log: silentLogger });
    let answered = 0;
    const server = await startServer(
      {
        async fetch(request) {
          const response = await app.fetch(request);
          if (request.method === 'POST') {
            answered += 1;
            if (answered === burst - 1) hold.release();
          }
          return response;
        },
      },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const report = await runConformance({
        ...endpointsOf(server.url),
        burst,
        filter: (check) => check.id === 'turn-rules.concurrent-hop-409',
      });
      assert.equal(report.results.length, 1);
      const [result] = report.results;
      assert.equal(result!.status, 'pass', result!.why);
      assert.match(result!.why, /1 got the same 200 response, 5 got 409 hop_in_progress/);
      assert.equal(model.requests.length, 1, 'the hop executed once');
    } finally {
      await server.close();
    }
  });

  it('passes cancel.during-hop with the cancel landing while the hop runs: that hop answers 410 with progress ""', async () => {
    // The hop's model decision is held until the server has answered a cancel that found the turn, so the cancel
    // lands while the hop runs, whatever the machine's speed.
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const hold = model.holdNext();
    const app = createApp({ agents: fixtures.agents, catalog: fixtures.catalog, provider: model, log: silentLogger });
    const server = await startServer(
      {
        async fetch(request) {
          const response = await app.fetch(request);
          if (request.method === 'DELETE' && ((await response.clone().json()) as { cancelled?: boolean }).cancelled)
            hold.release();
          return response;
        },
      },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const report = await runConformance({
        ...endpointsOf(server.url),
        level: 2,
        filter: (check) => check.id === 'cancel.during-hop',
      });
      const [result] = report.results;
      assert.equal(result!.status, 'pass', result!.why);
      assert.match(result!.why, /the cancel landed while hop 1 ran: hop 1 got 410 with progress "", and hop 2 got 410/);
    } finally {
      await server.close();
    }
  });
});
