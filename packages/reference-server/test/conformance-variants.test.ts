import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runConformance } from '@canvas-ai/conformance';
import { BROKEN_VARIANTS, startBrokenServer, type BrokenVariantName } from './support/broken-variants.js';
import { sharedFixtures } from './support/harness.js';

// The kit catches real bugs: each deliberately broken variant of the reference server fails the check that names
// its bug. (The unbroken server passing every check is in conformance.test.ts.)
const fixtures = await sharedFixtures();

describe('the conformance kit against deliberately broken variants of the reference server', () => {
  for (const name of Object.keys(BROKEN_VARIANTS) as BrokenVariantName[]) {
    const variant = BROKEN_VARIANTS[name];
    it(`fails ${variant.failingCheck} when ${variant.bug}`, async () => {
      const server = await startBrokenServer(name, fixtures);
      try {
        const report = await runConformance({
          endpoint: `${server.url}/api/hop`,
          tokenEndpoint: `${server.url}/api/token`,
          agentsEndpoint: `${server.url}/api/agents`,
          level: 2,
        });
        const failed = report.results.filter((result) => result.status === 'fail').map((result) => result.id);
        assert.ok(report.failed > 0, 'the kit fails the variant');
        assert.ok(
          failed.includes(variant.failingCheck),
          `${variant.failingCheck} should fail; failed: ${failed.join(', ')}`,
        );
        const named = report.results.find((result) => result.id === variant.failingCheck)!;
        assert.ok(named.why.length > 0, 'the failure says why');
      } finally {
        await server.close();
      }
    });
  }

  it('fails nothing but the named check for the variants whose bug no other check can see', async () => {
    for (const name of ['state-kept-after-error', 'replay-executes-again', 'request-id-not-required'] as const) {
      const server = await startBrokenServer(name, fixtures);
      try {
        const report = await runConformance({
          endpoint: `${server.url}/api/hop`,
          tokenEndpoint: `${server.url}/api/token`,
          level: 2,
        });
        const failed = report.results.filter((result) => result.status === 'fail').map((result) => result.id);
        assert.deepEqual(failed, [BROKEN_VARIANTS[name].failingCheck], name);
      } finally {
        await server.close();
      }
    }
  });
});
