import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ConformanceReport, formatClaimVerdict, runConformance } from '@canvas-ai/conformance';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/node.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { sharedFixtures, startTestServer } from './support/harness.js';
import { RecordingProvider } from './support/providers.js';
import { realApp, wrap } from './support/variants/seams.js';

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
      // Told the reference server's per-session bound (32), the kit drives a session to it.
      const report = await runConformance({ ...endpointsOf(server.url), level: 2, sessionTurns: 32 });
      assert.deepEqual(failures(report), []);
      assert.equal(report.skipped, 0);
      assert.equal(report.passed, report.results.length);
      const ids = report.results.map((result) => result.id);
      for (const scenario of fixtures.scenarios)
        assert.ok(ids.includes(`scenario.${scenario.id}`), `scenario ${scenario.id} was played`);
      assert.ok(ids.includes('validation.request-id-missing'), 'the malformed-request table was read');
      assert.deepEqual(new Set(report.results.map((result) => result.level)), new Set([1, 2]));
      assert.deepEqual(report.notClaimed, []);
      assert.equal(
        formatClaimVerdict(report),
        'canvas-ai/1 revision 1.8: level 2, streaming, remove/move, questions, screenshots, plans, approvals',
      );
    } finally {
      await server.close();
    }
  });

  it('holds a server claiming revision 1.3 and no optional part to that: the later groups are skipped, each named once', async () => {
    const server = await startTestServer();
    try {
      const report = await runConformance({
        ...endpointsOf(server.url),
        level: 2,
        claim: { revision: '1.3', parts: [] },
      });
      assert.deepEqual(failures(report), []);
      assert.deepEqual((report.notClaimed ?? []).map((group) => group.what).sort(), [
        'a look at the page (spec §20.3)',
        'approval of destructive changes (spec §20.5)',
        'derived props (spec §10.1, revision 1.6)',
        'plans (spec §20.4)',
        'streamed hops (spec §6.1)',
        "the agents' ETag (spec §3.1, revision 1.5)",
        'the remove_components and move_components outputs (spec §11.4, §11.5)',
        'trace context (spec §4.7, revision 1.4)',
        'usage (spec §6.2, revision 1.4)',
        'waiting turns and questions (spec §20)',
      ]);
      const ran = report.results.map((result) => result.id);
      const skipped = (report.notClaimed ?? []).flatMap((group) => group.checks);
      assert.ok(skipped.includes('scenario.move-testimonials-up') && skipped.includes('tools.move-listed-twice'));
      assert.deepEqual(
        ran.filter((id) => skipped.includes(id)),
        [],
        'a check not claimed ran',
      );
      assert.ok(ran.includes('status.active') && ran.includes('scenario.coedit-edit-after-person'));
      assert.equal(formatClaimVerdict(report), 'canvas-ai/1 revision 1.3: level 2');
    } finally {
      await server.close();
    }
  });

  it('passes a server that answers JSON to a request for a stream when it does not claim streaming, and fails it when it does', async () => {
    // The real app behind a layer that serves every hop as JSON (spec §6.1 lets a server do so).
    const server = await startServer(
      wrap(realApp(fixtures), (request, next) => next(request)),
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const modest = await runConformance({
        ...endpointsOf(server.url),
        claim: { revision: '1.8', parts: ['remove-move', 'questions', 'screenshots', 'plans'] },
      });
      assert.deepEqual(failures(modest), []);
      assert.deepEqual(
        (modest.notClaimed ?? []).map((group) => group.what),
        ['streamed hops (spec §6.1)'],
      );
      assert.equal(
        formatClaimVerdict(modest),
        'canvas-ai/1 revision 1.8: level 1, remove/move, questions, screenshots, plans',
      );
      const claimed = await runConformance({
        ...endpointsOf(server.url),
        filter: (check) => check.id.startsWith('stream.'),
      });
      const failed = claimed.results.filter((result) => result.status === 'fail');
      assert.ok(failed.length > 0 && failed.every((result) => /though it claims streaming/.test(result.why)));
      assert.ok(
        claimed.results.some((result) => result.id === 'stream.json-without-accept' && result.status === 'pass'),
      );
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
    // The scenario's decision takes 800 ms (delay_ms), and is also held until the server has answered a cancel that
    // found the turn, so the cancel lands while the hop runs, whatever the machine's speed.
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
      assert.match(
        result!.why,
        /the cancel landed \d+ ms into hop 1's 800 ms decision: hop 1 got 410 with progress "", and hop 2 got 410/,
      );
    } finally {
      await server.close();
    }
  });
});
