import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { CookieJar } from '../src/cookie-jar.js';
import {
  formatClosingLine,
  formatResultLine,
  formatSummary,
  type CheckResult,
  type ConformanceReport,
} from '../src/index.js';

const result = (id: string, status: CheckResult['status'], why = 'because'): CheckResult => ({
  id,
  group: id.split('.')[0]!,
  level: 1,
  title: 'a check',
  spec: '§8.2 Retries and replay',
  status,
  why,
  durationMs: 1,
});

function report(results: CheckResult[], notClaimed: ConformanceReport['notClaimed'] = []): ConformanceReport {
  const count = (status: CheckResult['status']) => results.filter((entry) => entry.status === status).length;
  return {
    endpoint: 'http://127.0.0.1:8787/api/hop',
    level: 2,
    claim: { revision: '1.6', parts: ['streaming', 'remove-move'] },
    notClaimed,
    results,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
  };
}

describe('the reporter', () => {
  it('prints one line per check: status, id padded to a column, why', () => {
    assert.equal(
      formatResultLine(result('replay.same-response', 'pass', '1 hop(s) replayed identically')),
      `PASS  ${'replay.same-response'.padEnd(48)} 1 hop(s) replayed identically`,
    );
    assert.match(formatResultLine(result('csrf.wrong-token', 'fail')), /^FAIL {2}csrf\.wrong-token +because$/);
    assert.match(formatResultLine(result('csrf.wrong-token', 'skip')), /^SKIP {2}/);
  });

  it('closes with exactly "N passed, N failed"', () => {
    assert.equal(formatClosingLine({ passed: 87, failed: 2 }), '87 passed, 2 failed');
  });

  it('summarises per group in run order with a total row, lists the failures, and ends with the closing line', () => {
    const summary = formatSummary(
      report([
        result('validation.a', 'pass'),
        result('validation.b', 'fail', 'got 200'),
        result('csrf.c', 'skip'),
        result('replay.d', 'pass'),
      ]),
    );
    const lines = summary.split('\n');
    assert.deepEqual(lines.slice(0, 11), [
      '',
      'Conformance level 2 against http://127.0.0.1:8787/api/hop',
      '',
      'group       passed  failed  skipped',
      '----------  ------  ------  -------',
      'validation       1       1        0',
      'csrf             0       0        1',
      'replay           1       0        0',
      '----------  ------  ------  -------',
      'total            2       1        1',
      '',
    ]);
    assert.deepEqual(lines.slice(11), [
      'Failed:',
      '  validation.b (§8.2 Retries and replay): got 200',
      '',
      'Not met: canvas-ai/1 revision 1.6: level 2, streaming, remove/move (1 check(s) failed)',
      '2 passed, 1 failed',
    ]);
  });

  it('ends a passing run with the claim as one line for a README, after a line per group of checks not claimed', () => {
    const passing = report(
      [result('validation.a', 'pass')],
      [
        {
          what: 'streamed hops (spec §6.1)',
          why: 'the optional part streaming, which the server does not claim (--parts)',
          checks: ['stream.content-type', 'stream.lines-valid'],
        },
      ],
    );
    const summary = formatSummary({ ...passing, claim: { revision: '1.5', parts: ['remove-move'] } });
    assert.deepEqual(summary.split('\n').slice(-6), [
      '',
      'Not claimed, so not checked:',
      'SKIP  streamed hops (spec §6.1): needs the optional part streaming, which the server does not claim (--parts); 2 check(s) skipped (stream.content-type, stream.lines-valid)',
      '',
      'canvas-ai/1 revision 1.5: level 2, remove/move',
      '1 passed, 0 failed',
    ]);
  });

  it("heads a client's run without a level and ends it with the client's claim line", () => {
    const passing = report([result('client.session', 'pass')]);
    const summary = formatSummary({
      ...passing,
      subject: 'client',
      endpoint: 'my-client --server {server} (the kit served it at http://127.0.0.1:4000)',
      claim: { revision: '1.7', parts: ['streaming'] },
    });
    const lines = summary.split('\n');
    assert.equal(
      lines[1],
      'Client conformance against my-client --server {server} (the kit served it at http://127.0.0.1:4000)',
    );
    assert.deepEqual(lines.slice(-2), ['canvas-ai/1 revision 1.7 client: streaming', '1 passed, 0 failed']);
    assert.equal(
      formatSummary({ ...passing, subject: 'client', claim: { revision: '1.3', parts: [] } })
        .split('\n')
        .at(-2),
      'canvas-ai/1 revision 1.3 client',
    );
  });

  it('lists at most 20 failures under the table (a server that is down fails them all)', () => {
    const summary = formatSummary(
      report(Array.from({ length: 25 }, (_, index) => result(`validation.row-${index}`, 'fail'))),
    );
    assert.equal(summary.split('\n').filter((line) => line.startsWith('  validation.')).length, 20);
    assert.match(summary, /… and 5 more \(their lines are above\)\n\nNot met: .*\n0 passed, 25 failed$/);
  });
});

describe('the cookie jar', () => {
  it('keeps the cookies a response sets and sends them back as one header', () => {
    const jar = new CookieJar();
    assert.equal(jar.header(), undefined);
    const headers = new Headers();
    headers.append('set-cookie', 'canvas_ai_session=abc; Path=/; HttpOnly; SameSite=Lax');
    headers.append('set-cookie', 'theme=dark');
    jar.store(headers);
    assert.equal(jar.header(), 'canvas_ai_session=abc; theme=dark');
  });

  it('forgets a cookie set with Max-Age=0 or an Expires in the past', () => {
    const jar = new CookieJar();
    jar.store(
      new Headers([
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]),
    );
    jar.store(
      new Headers([
        ['set-cookie', 'a=; Max-Age=0'],
        ['set-cookie', 'b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT'],
      ]),
    );
    assert.equal(jar.size, 0);
  });
});
