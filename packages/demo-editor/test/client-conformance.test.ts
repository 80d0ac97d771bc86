// The client kit (spec/conformance.md §7) against the <canvas-ai-chat> element in Debian's Chromium: the built demo
// editor, its agent server behind the page's own origin, one turn per scripted scenario (test/support/element-adapter.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatClaimVerdict, runClientConformance } from '@canvas-ai/conformance';

const ADAPTER = fileURLToPath(new URL('./support/element-adapter.ts', import.meta.url));

describe('the client kit against the element in Chromium', () => {
  it('passes every check', async () => {
    const report = await runClientConformance({
      command: `'${process.execPath}' --import tsx '${ADAPTER}' {server} {message} {agent} {answers} {out} {shown}`,
      timeoutMs: 60_000,
      onScenario: (id, code, stderr) => {
        if (code !== 0) console.log(`${id}: exit ${code}\n${stderr}`);
      },
    });
    const lines = report.results.map((result) => `${result.status} ${result.id}: ${result.why}`);
    console.log(lines.join('\n'));
    assert.equal(report.failed, 0, lines.filter((line) => line.startsWith('fail')).join('\n'));
    assert.equal(report.skipped, 0, lines.filter((line) => line.startsWith('skip')).join('\n'));
    // The demo's element applies removals and moves and answers every wait: its line names them, as played.
    assert.equal(
      formatClaimVerdict(report),
      'canvas-ai/1 revision 1.8 client: streaming, remove/move, questions, screenshots, plans, approvals',
    );
  });
});
