// The client kit (spec/conformance.md §7) against the reference loop: the canvas-ai-turn command, a client in Node
// on the framework-free loop, passes every check; each planted bug of test/node/broken-loop.ts is caught by the
// check of its own rule.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLIENT_CHECKS, formatClaimVerdict, runClientConformance } from '@canvas-ai/conformance';
import { BROKEN_LOOPS, type BrokenLoopName } from './broken-loop.js';

const CLI = fileURLToPath(new URL('../../src/node/headless-cli.ts', import.meta.url));
const BROKEN = fileURLToPath(new URL('./broken-loop.ts', import.meta.url));
const NODE = `'${process.execPath}' --import tsx`;

/** The adapter command: the reference CLI, or a broken loop. */
const adapter = (variant?: BrokenLoopName) =>
  variant
    ? `${NODE} '${BROKEN}' ${variant} {server} {message} {agent} {attachment} {answers} {out} {shown}`
    : `${NODE} '${CLI}' --server {server} --message {message} --agent {agent} --attach {attachment} --answers {answers} --out {out} 2> {shown}`;

describe('the client kit against the reference loop (canvas-ai-turn)', () => {
  it('passes every check', async () => {
    const report = await runClientConformance({
      command: adapter(),
      onScenario: (id, code, stderr) => {
        if (code !== 0) console.log(`${id}: exit ${code}\n${stderr}`);
      },
    });
    const lines = report.results.map((result) => `${result.status} ${result.id}: ${result.why}`);
    console.log(lines.join('\n'));
    assert.equal(report.failed, 0, lines.filter((line) => line.startsWith('fail')).join('\n'));
    assert.equal(report.skipped, 0, lines.filter((line) => line.startsWith('skip')).join('\n'));
    assert.ok(report.passed >= 21);
    // canvas-ai-turn --attach sends the kit's photo with hop 1.
    assert.match(
      report.results.find((result) => result.id === 'client.attachments-hop-1')?.why ?? '',
      /hop 1 carried 1 file\(s\)/,
    );
    // Its line for a README names the parts the client kit played; the others it claims are said to be unchecked.
    assert.equal(
      formatClaimVerdict(report),
      'canvas-ai/1 revision 1.8 client: streaming, remove/move, questions, screenshots, plans, approvals',
    );
  });
});

describe('the client kit against planted bugs of the loop', () => {
  const caught: string[] = [];
  for (const [name, variant] of Object.entries(BROKEN_LOOPS) as [
    BrokenLoopName,
    (typeof BROKEN_LOOPS)[BrokenLoopName],
  ][]) {
    it(`${name}: fails ${variant.caughtBy} when ${variant.bug}`, async () => {
      const report = await runClientConformance({ command: adapter(name), scenarios: variant.scenarios });
      const failed = report.results.filter((result) => result.status === 'fail');
      const seen = failed.map((result) => `${result.id}: ${result.why}`).join('\n');
      assert.ok(
        failed.some((result) => result.id === variant.caughtBy),
        `${variant.caughtBy} did not fail; failed:\n${seen || '(none)'}`,
      );
      const allowed = [variant.caughtBy, ...(variant.alsoFailing ?? [])];
      assert.deepEqual(
        failed.map((result) => result.id).filter((id) => !allowed.includes(id)),
        [],
        `other checks failed too:\n${seen}`,
      );
      caught.push(name);
    });
  }
  it('plants a bug for every client check, caught by that check', () => {
    const planted = new Set(Object.values(BROKEN_LOOPS).map((variant) => variant.caughtBy));
    assert.deepEqual(
      CLIENT_CHECKS.map((check) => check.id).filter((id) => !planted.has(id)),
      [],
      'client checks with no planted bug of their own',
    );
  });
  it('reports its catch rate', () => {
    const total = Object.keys(BROKEN_LOOPS).length;
    console.log(`client planted bugs caught: ${caught.length}/${total}`);
    assert.equal(caught.length, total);
  });
});
