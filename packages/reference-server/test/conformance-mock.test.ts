import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { setupServer } from 'msw/node';
import { runConformance } from '@canvas-ai/conformance';
import { loadFixtures } from '@canvas-ai/protocol/node';
import { createMockHandlers } from '../src/mock.js';

// The msw mock is the reference server run through msw: the kit holds it to the same checks as the server itself,
// except those that need a session cookie (the mock serves one fixed session), and door.not-found and
// origin.refused-first, which send requests to a path that is no endpoint (msw answers only the paths it has handlers
// for; any other request leaves the page, which is not the mock's to answer), and the checks that name a Host of
// their own over a socket (a page's requests always carry the page's host, so the mock checks none).
const fixtures = await loadFixtures();
const server = setupServer(
  ...createMockHandlers({
    baseUrl: 'http://mock.test',
    scenarios: fixtures.scenarios,
    catalog: fixtures.catalog,
    agents: fixtures.agents,
    latencyMs: 1,
  }),
);
before(() => server.listen({ onUnhandledFrame: 'error' }));
after(() => server.close());

describe('the conformance kit against the msw mock', () => {
  it('passes every level-1 and level-2 check that needs no session', async () => {
    const report = await runConformance({
      endpoint: 'http://mock.test/api/hop',
      agentsEndpoint: 'http://mock.test/api/agents',
      level: 2,
      filter: (check) =>
        !['door.not-found', 'origin.refused-first', 'hosts.other-host-refused', 'origin.own-origin-by-port'].includes(
          check.id,
        ),
    });
    assert.deepEqual(
      report.results.filter((result) => result.status === 'fail').map((result) => `${result.id}: ${result.why}`),
      [],
    );
    assert.deepEqual(
      report.results.filter((result) => result.status === 'skip').map((result) => result.id),
      [
        'csrf.missing-header',
        'csrf.wrong-token',
        'csrf.other-session-token',
        'csrf.no-session',
        'csrf.cancel-needs-token',
        'csrf.cookie-reaches-endpoints',
        'csrf.unknown-cookie',
        'turn-rules.other-session-410',
        // Not told the bound: the mock's one session is the run's too, so its turns share the bound.
        'quotas.session-turns',
        'status.other-session-410',
        'status.no-session-410',
        // The mock waits 15 minutes for an answer, as the server does by default: the kit sits out only 60 s.
        'waits.expiry',
        'schemas.token-response',
      ],
    );
  });
});
