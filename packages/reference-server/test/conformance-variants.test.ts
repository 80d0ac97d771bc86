import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MUST_MATRIX, runConformance } from '@canvas-ai/conformance';
import { BROKEN_VARIANTS, startBrokenServer, type BrokenVariantName } from './support/broken-variants.js';
import { sharedFixtures } from './support/harness.js';

// The kit catches real bugs: each deliberately broken variant of the reference server fails the check that names
// its rule, and exactly the checks that see that bug, so no failure names another rule. (The unbroken server
// passing every check is in conformance.test.ts.)
const fixtures = await sharedFixtures();
const names = Object.keys(BROKEN_VARIANTS) as BrokenVariantName[];

/** The checks of each rule group of the matrix, families (`validation.*`) kept as prefixes. */
const groupChecks = new Map<string, string[]>();
// The client rows are the client kit's: its planted bugs of a client are in packages/widget/test/node.
for (const row of MUST_MATRIX)
  if (row.checks && row.group !== 'client')
    groupChecks.set(row.group, [...(groupChecks.get(row.group) ?? []), ...row.checks]);
/** Whether a check id is `named`, or of the family `named` (`scenario.*`). */
const matchesCheck = (named: string, id: string) =>
  named === id || (named.endsWith('.*') && id.startsWith(named.slice(0, -1)));
const inGroup = (group: string, check: string) =>
  (groupChecks.get(group) ?? []).some((named) => matchesCheck(named, check));

const caught: string[] = [];

describe('the conformance kit against deliberately broken variants of the reference server', () => {
  it('plants at least 25 bugs, one or more in every rule group of the MUST → check matrix that has checks', () => {
    assert.ok(names.length >= 25, `only ${names.length} variants`);
    const planted = new Set(names.map((name) => BROKEN_VARIANTS[name].group));
    assert.deepEqual(
      [...groupChecks.keys()].filter((group) => !planted.has(group)),
      [],
      'groups without a planted bug',
    );
    for (const name of names) {
      const variant = BROKEN_VARIANTS[name];
      assert.ok(groupChecks.has(variant.group), `${name}: no rule group ${variant.group}`);
      assert.ok(
        inGroup(variant.group, variant.caughtBy),
        `${name}: ${variant.caughtBy} is not a check of ${variant.group}`,
      );
    }
  });

  for (const name of names) {
    const variant: (typeof BROKEN_VARIANTS)[BrokenVariantName] & { alsoFailing?: readonly string[] } =
      BROKEN_VARIANTS[name];
    it(`${name}: fails ${variant.caughtBy} when ${variant.bug}`, async () => {
      const server = await startBrokenServer(name, fixtures);
      try {
        const report = await runConformance({
          endpoint: `${server.url}/api/hop`,
          tokenEndpoint: `${server.url}/api/token`,
          agentsEndpoint: `${server.url}/api/agents`,
          level: 2,
        });
        const failed = report.results.filter((result) => result.status === 'fail');
        const seen = failed.map((result) => `${result.id}: ${result.why}`).join('\n');
        const allowed = [variant.caughtBy, ...(variant.alsoFailing ?? [])];
        assert.ok(
          failed.some((result) => result.id === variant.caughtBy),
          `${variant.caughtBy} did not fail:\n${seen}`,
        );
        const elsewhere = failed.filter((result) => !allowed.some((check) => matchesCheck(check, result.id)));
        assert.deepEqual(
          elsewhere.map((result) => `${result.id}: ${result.why}`),
          [],
          'failures naming another rule',
        );
        for (const check of variant.alsoFailing ?? [])
          assert.ok(
            failed.some((result) => matchesCheck(check, result.id)),
            `${check} is listed but did not fail`,
          );
        assert.ok(
          failed.every((result) => result.why.length > 0),
          'every failure says why',
        );
        caught.push(name);
      } finally {
        await server.close();
      }
    });
  }

  after(() => {
    const groups = new Set(names.map((name) => BROKEN_VARIANTS[name].group)).size;
    const rate = Math.round((caught.length / names.length) * 100);
    console.log(
      `conformance kit catch rate: ${caught.length}/${names.length} planted bugs caught by the check naming their rule (${rate}%), ${groups} rule groups`,
    );
  });
});
