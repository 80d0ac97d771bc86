import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MUST_MATRIX, type MustRow, runConformance } from '@canvas-ai/conformance';
import {
  BROKEN_VARIANTS,
  type BrokenVariant,
  type BrokenVariantName,
  startBrokenServer,
} from './support/broken-variants.js';
import { sharedFixtures } from './support/harness.js';

// The kit catches real bugs: each deliberately broken variant of the reference server fails the check that names
// its rule, and exactly the checks that see that bug, so no failure names another rule. (The unbroken server
// passing every check is in conformance.test.ts.)
const fixtures = await sharedFixtures();
const names = Object.keys(BROKEN_VARIANTS) as BrokenVariantName[];

/** Whether a check id is `named`, or of the family `named` (`scenario.*`). */
const matchesCheck = (named: string, id: string) =>
  named === id || (named.endsWith('.*') && id.startsWith(named.slice(0, -1)));
/** Whether the matrix row claims `check` among the checks that observe it. */
const claims = (row: MustRow, check: string) => (row.checks ?? []).some((named) => matchesCheck(named, check));
const describeRow = (row: MustRow) => `${row.document ?? 'spec'} §${row.section} "${row.says}…"`;

/** Rows with a check and no variant of their own, each with why (the list must stay exact): none. */
const NOT_YET_PLANTED: readonly string[] = [];

const ran: BrokenVariantName[] = [];
const caught: string[] = [];

describe('the conformance kit against deliberately broken variants of the reference server', () => {
  it('plants a bug for every MUST row that claims a check, caught by a check the row claims', (t) => {
    for (const name of names) {
      const variant = BROKEN_VARIANTS[name];
      assert.ok(variant.breaks.length > 0, `${name} names no MUST it breaks`);
      for (const row of variant.breaks) {
        assert.ok(row.checks, `${name}: ${describeRow(row)} claims no check`);
        assert.ok(
          claims(row, variant.caughtBy),
          `${name}: ${variant.caughtBy} is not a check ${describeRow(row)} claims`,
        );
      }
    }
    const planted = new Set(names.flatMap((name) => BROKEN_VARIANTS[name].breaks));
    // The client rows are the client kit's: its planted bugs of a client are in packages/widget/test/node.
    const serverRows = MUST_MATRIX.filter((row) => row.checks && row.group !== 'client');
    const withoutVariant = serverRows.filter((row) => !planted.has(row)).map(describeRow);
    const claimed = serverRows.length;
    t.diagnostic(
      `${claimed} server MUST rows claim a check; ${claimed - withoutVariant.length} have a planted variant, ${withoutVariant.length} do not`,
    );
    for (const row of withoutVariant) t.diagnostic(`no variant: ${row}`);
    assert.deepEqual(withoutVariant, NOT_YET_PLANTED, 'MUST rows with a check and no planted variant');
  });

  for (const name of names) {
    const variant: BrokenVariant = BROKEN_VARIANTS[name];
    it(`${name}: fails ${variant.caughtBy} when ${variant.bug}`, async () => {
      ran.push(name);
      const server = await startBrokenServer(name, fixtures);
      try {
        const report = await runConformance({
          endpoint: `${server.url}/api/hop`,
          tokenEndpoint: `${server.url}/api/token`,
          agentsEndpoint: `${server.url}/api/agents`,
          level: 2,
          // The reference server's per-session bound (spec §8.8), so the kit drives a session to it.
          sessionTurns: 32,
          // A variant that serves every hop as JSON claims no streaming (spec §6.1 lets a server answer JSON).
          claim: {
            revision: '1.8',
            parts: [
              ...(server.streams ? (['streaming'] as const) : []),
              'remove-move',
              'questions',
              'screenshots',
              'plans',
              'approvals',
            ],
          },
        });
        const failed = report.results.filter((result) => result.status === 'fail');
        const seen = failed.map((result) => `${result.id}: ${result.why}`).join('\n');
        const allowed = [variant.caughtBy, ...(variant.alsoFailing ?? []), ...(variant.mayAlsoFail ?? [])];
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
    if (ran.length === 0) return;
    const rows = new Set(ran.flatMap((name) => BROKEN_VARIANTS[name].breaks)).size;
    const rate = Math.round((caught.length / ran.length) * 100);
    console.log(
      `conformance kit catch rate: ${caught.length}/${ran.length} planted bugs caught by a check their MUST row claims (${rate}%; ${names.length} variants, ${rows} MUST rows in this run)`,
    );
  });
});
