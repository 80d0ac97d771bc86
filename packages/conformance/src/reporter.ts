import type { CheckResult, CheckStatus, ConformanceReport } from './check.js';
import { claimLine, clientClaimLine } from './claims.js';

const LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' };
const ID_WIDTH = 48;
/** The failed checks listed again under the table; a server that is down fails them all. */
const MAX_LISTED = 20;

/** The line printed as soon as a check has run: status, id, why. */
export function formatResultLine(result: CheckResult): string {
  return `${LABEL[result.status]}  ${result.id.padEnd(ID_WIDTH)} ${result.why}`;
}

/** The closing line, exactly `N passed, N failed`. */
export function formatClosingLine(report: Pick<ConformanceReport, 'passed' | 'failed'>): string {
  return `${report.passed} passed, ${report.failed} failed`;
}

/**
 * What is printed after the last check: a table of passed, failed and skipped checks per group (in run order), the
 * failed checks again with their section of spec/hop-protocol.md, and the closing line.
 */
export function formatSummary(report: ConformanceReport): string {
  const groups: string[] = [];
  for (const result of report.results) if (!groups.includes(result.group)) groups.push(result.group);
  const rows = groups.map((group) => {
    const of = report.results.filter((result) => result.group === group);
    return [group, String(count(of, 'pass')), String(count(of, 'fail')), String(count(of, 'skip'))];
  });
  const table = renderTable(
    ['group', 'passed', 'failed', 'skipped'],
    [...rows, ['total', String(report.passed), String(report.failed), String(report.skipped)]],
  );
  const failed = report.results.filter((result) => result.status === 'fail');
  const heading =
    report.subject === 'client'
      ? `Client conformance against ${report.endpoint}`
      : `Conformance level ${report.level} against ${report.endpoint}`;
  const lines = ['', heading, '', ...table];
  if (failed.length > 0) {
    lines.push('', 'Failed:');
    for (const result of failed.slice(0, MAX_LISTED)) lines.push(`  ${result.id} (${result.spec}): ${result.why}`);
    if (failed.length > MAX_LISTED) lines.push(`  … and ${failed.length - MAX_LISTED} more (their lines are above)`);
  }
  if (report.notClaimed?.length) lines.push('', 'Not claimed, so not checked:', ...formatNotClaimed(report.notClaimed));
  lines.push('');
  const verdict = formatClaimVerdict(report);
  if (verdict !== undefined) lines.push(verdict);
  lines.push(formatClosingLine(report));
  return lines.join('\n');
}

/** One line per group of checks the claim leaves out: what, why, and its checks. */
function formatNotClaimed(notClaimed: NonNullable<ConformanceReport['notClaimed']>): string[] {
  return notClaimed.map(({ what, why, checks, scenarios = [] }) => {
    const skipped = [
      ...(checks.length > 0 || scenarios.length === 0
        ? [`${checks.length} check(s) skipped (${checks.join(', ')})`]
        : []),
      ...(scenarios.length > 0 ? [`${scenarios.length} scenario(s) not played (${scenarios.join(', ')})`] : []),
    ];
    return `${LABEL.skip}  ${what}: needs ${why}; ${skipped.join('; ')}`;
  });
}

/**
 * The claim as one line a project can paste into its README when every check passed
 * (`canvas-ai/1 revision 1.8: level 2, streaming, remove/move, questions, screenshots, plans`; a client's
 * `canvas-ai/1 revision 1.8 client: streaming`), or that it does not hold.
 */
export function formatClaimVerdict(
  report: Pick<ConformanceReport, 'subject' | 'claim' | 'level' | 'failed'>,
): string | undefined {
  if (report.claim === undefined) return undefined;
  const line = report.subject === 'client' ? clientClaimLine(report.claim) : claimLine(report.claim, report.level);
  return report.failed === 0 ? line : `Not met: ${line} (${report.failed} check(s) failed)`;
}

function count(results: readonly CheckResult[], status: CheckStatus): number {
  return results.filter((result) => result.status === status).length;
}

/** Left-aligned first column, right-aligned numbers, a rule under the header and above the total. */
function renderTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const render = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [render(header), rule, ...rows.slice(0, -1).map(render), rule, render(rows.at(-1)!)];
}
