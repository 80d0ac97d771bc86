import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startBrokenServer } from './support/broken-variants.js';
import { sharedFixtures } from './support/harness.js';

// The kit's CLI as a process (tsx) against the reference server's CLI as another process: the way a backend team
// runs it in CI.
const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
const serverCli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const kitCli = fileURLToPath(new URL('../../conformance/src/cli.ts', import.meta.url));

/** Runs the kit's CLI to its end: exit status and standard output. */
function runKit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const kit = spawn(process.execPath, [tsxCli, kitCli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    kit.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    kit.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    kit.once('error', reject);
    kit.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts the server CLI on port 0 and resolves its URL from the line it logs when listening. */
function startServerProcess(): Promise<{ process: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [tsxCli, serverCli, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) resolve({ process: server, url });
    });
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)));
  });
}

const closingLine = (stdout: string) => stdout.trimEnd().split('\n').at(-1);

describe('the canvas-ai-conformance CLI as a process', () => {
  let server: { process: ChildProcess; url: string };
  let dir: string;
  before(async () => {
    server = await startServerProcess();
    dir = await mkdtemp(join(tmpdir(), 'canvas-ai-conformance-'));
  });
  after(async () => {
    server.process.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 against the reference server CLI, one line per check, closing with "N passed, 0 failed"', async () => {
    const report = join(dir, 'report.json');
    const { code, stdout, stderr } = await runKit([
      '--endpoint',
      `${server.url}/api/hop`,
      '--token-endpoint',
      `${server.url}/api/token`,
      '--agents-endpoint',
      `${server.url}/api/agents`,
      '--level',
      '2',
      '--json',
      report,
    ]);
    assert.equal(code, 0, stdout + stderr);
    const passLines = stdout.split('\n').filter((line) => line.startsWith('PASS  ')).length;
    assert.ok(passLines > 60, `one line per check (${passLines})`);
    assert.equal(closingLine(stdout), `${passLines} passed, 0 failed`);
    assert.match(
      stdout,
      /^canvas-ai\/1 revision 1\.8: level 2, streaming, remove\/move, questions, screenshots, plans, approvals$/m,
    );
    const written = JSON.parse(await readFile(report, 'utf8')) as { passed: number; failed: number };
    assert.deepEqual([written.passed, written.failed], [passLines, 0]);
  });

  it('exits 1 against a broken server, naming the failed check', async () => {
    const broken = await startBrokenServer('request-id-not-required', await sharedFixtures());
    try {
      const { code, stdout } = await runKit([
        '--endpoint',
        `${broken.url}/api/hop`,
        '--token-endpoint',
        `${broken.url}/api/token`,
        // The variant serves every hop as JSON, so it does not claim streaming.
        '--parts',
        'remove-move',
      ]);
      assert.equal(code, 1);
      assert.match(
        stdout,
        /^FAIL {2}validation\.request-id-missing +expected 400 missing_field naming "request_id", got 200$/m,
      );
      assert.match(closingLine(stdout)!, /^\d+ passed, 1 failed$/);
    } finally {
      await broken.close();
    }
  });

  it('exits 2 on a usage error, with the help', async () => {
    const { code, stdout, stderr } = await runKit(['--level', '3', '--endpoint', `${server.url}/api/hop`]);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /--level must be 1 or 2/);
    assert.match(stderr, /Usage: canvas-ai-conformance --endpoint URL/);
  });
});
