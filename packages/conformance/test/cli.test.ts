import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UsageError } from '@canvas-ai/protocol/node';
import { CONFORMANCE_FLAGS, conformanceHelp, parseConformanceArgs } from '../src/cli-args.js';
import { PART_NAMES } from '../src/claims.js';
import { type CliIo, main } from '../src/cli-main.js';
import { CLIENT_SCENARIOS } from '../src/client/client-scenarios.js';
import { KIT_FIXTURES_DIR } from '../src/index.js';
import { startFakeServer } from './support/fake-server.js';

/** A CLI io that keeps what is written. */
function memoryIo(): CliIo & { stdout: string[]; stderr: string[]; files: Record<string, string> } {
  const io = {
    stdout: [] as string[],
    stderr: [] as string[],
    files: {} as Record<string, string>,
    out: (line: string) => void io.stdout.push(line),
    err: (line: string) => void io.stderr.push(line),
    writeFile: async (path: string, text: string) => {
      io.files[path] = text;
    },
  };
  return io;
}

describe('the CLI arguments', () => {
  it('fills the defaults: level 1, the newest revision with every part, the prompt "Hello", 120 s per request', () => {
    assert.deepEqual(parseConformanceArgs(['--endpoint', 'http://127.0.0.1:8787/api/hop']), {
      endpoint: 'http://127.0.0.1:8787/api/hop',
      tokenEndpoint: undefined,
      agentsEndpoint: undefined,
      level: 1,
      claim: { revision: '1.8', parts: ['streaming', 'remove-move', 'questions', 'screenshots', 'plans', 'approvals'] },
      sessionTurns: undefined,
      scenariosDir: undefined,
      fixturesDir: undefined,
      json: undefined,
      prompt: 'Hello',
      timeoutMs: 120_000,
      help: false,
      printFixtures: false,
    });
  });

  it('reads the claim: --revision one of spec §14.1, --parts a list of optional parts or none', () => {
    const endpoint = ['--endpoint', 'http://127.0.0.1:8787/api/hop'];
    assert.deepEqual(parseConformanceArgs([...endpoint, '--revision', '1.3', '--parts', 'none']).claim, {
      revision: '1.3',
      parts: [],
    });
    assert.deepEqual(parseConformanceArgs([...endpoint, '--parts', 'remove-move']).claim?.parts, ['remove-move']);
    assert.throws(() => parseConformanceArgs([...endpoint, '--revision', '2.0']), /--revision must be one of 1\.0/);
    assert.throws(() => parseConformanceArgs([...endpoint, '--parts', 'streaming,undo']), /not "undo"/);
  });

  it('prints the folder of the fixtures it ships with --print-fixtures, and needs no endpoint for it', async () => {
    const io = memoryIo();
    assert.equal(await main(['--print-fixtures'], io), 0);
    assert.deepEqual(io.stdout, [KIT_FIXTURES_DIR]);
    assert.ok(existsSync(join(KIT_FIXTURES_DIR, 'malformed-requests.yaml')), "the folder holds the kit's table");
  });

  it('reads every flag, and ignores the "--" that `pnpm conformance -- …` passes', () => {
    const options = parseConformanceArgs([
      '--',
      '--endpoint',
      'https://example.test/api/hop',
      '--token-endpoint',
      'https://example.test/api/token',
      '--agents-endpoint',
      'https://example.test/api/agents',
      '--level',
      '2',
      '--scenarios',
      'my/scenarios',
      '--fixtures',
      'my',
      '--json',
      'report.json',
      '--prompt',
      'Hi there',
      '--timeout-ms',
      '5000',
      '--session-turns',
      '32',
    ]);
    assert.equal(options.level, 2);
    assert.equal(options.sessionTurns, 32);
    assert.equal(options.tokenEndpoint, 'https://example.test/api/token');
    assert.equal(options.scenariosDir, 'my/scenarios');
    assert.equal(options.fixturesDir, 'my');
    assert.equal(options.json, 'report.json');
    assert.equal(options.prompt, 'Hi there');
    assert.equal(options.timeoutMs, 5000);
  });

  it("reads a client's claim: the revision and parts it claims, as a server's", () => {
    const options = parseConformanceArgs(['--client', 'my-client {server}', '--revision', '1.3', '--parts', 'none']);
    assert.equal(options.client, 'my-client {server}');
    assert.deepEqual(options.claim, { revision: '1.3', parts: [] });
    assert.deepEqual(parseConformanceArgs(['--client', 'x']).claim, {
      revision: '1.8',
      parts: ['streaming', 'remove-move', 'questions', 'screenshots', 'plans', 'approvals'],
    });
  });

  const usage: Array<[string, string[], RegExp]> = [
    ['no endpoint', [], /--endpoint URL is required/],
    ['an endpoint and a client', ['--endpoint', 'http://a.test/h', '--client', 'x'], /not both/],
    ['an empty client command', ['--client', ' '], /--client needs the command/],
    ['a level other than 1 or 2', ['--endpoint', 'http://a.test/h', '--level', '3'], /--level must be 1 or 2/],
    ['an endpoint that is not a URL', ['--endpoint', 'localhost:8787'], /--endpoint must be an http or https URL/],
    [
      'a token endpoint that is not a URL',
      ['--endpoint', 'http://a.test/h', '--token-endpoint', 'token'],
      /--token-endpoint must be a URL/,
    ],
    ['scenarios at level 1', ['--endpoint', 'http://a.test/h', '--scenarios', 'x'], /--scenarios is for level 2/],
    [
      'session turns at level 1',
      ['--endpoint', 'http://a.test/h', '--session-turns', '32'],
      /--session-turns is for level 2/,
    ],
    [
      'session turns that are no whole number',
      ['--endpoint', 'http://a.test/h', '--level', '2', '--session-turns', '0'],
      /--session-turns must be a whole number from 1 to 1000/,
    ],
    [
      'a timeout that is not a whole number',
      ['--endpoint', 'http://a.test/h', '--timeout-ms', 'soon'],
      /--timeout-ms must be a positive whole number/,
    ],
    ['an unknown flag', ['--endpoint', 'http://a.test/h', '--verbose'], /Unknown option '--verbose'/],
    [
      "a server's flag on a client's run",
      ['--client', 'x', '--token-endpoint', 'http://a.test/t'],
      /--token-endpoint is for a server; a client's run takes none/,
    ],
    ['a part no one knows, for a client', ['--client', 'x', '--parts', 'telepathy'], /--parts takes streaming/],
  ];
  for (const [name, argv, message] of usage) {
    it(`refuses ${name} with a usage error`, () => {
      assert.throws(
        () => parseConformanceArgs(argv),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
      );
    });
  }

  it('generates the help from the flags: every flag, its placeholder and its default', () => {
    const help = conformanceHelp();
    for (const [name, flag] of Object.entries(CONFORMANCE_FLAGS)) {
      assert.match(
        help,
        new RegExp(
          `--${name}${'value' in flag ? ` ${flag.value.replace('|', '\\|')}` : ''} +${flag.help.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
        ),
      );
    }
    assert.match(help, /\(default 1\)/);
    assert.match(help, /Exit status: 0 every check passed, 1 a check failed, 2 a usage error/);
  });
});

describe('the CLI', () => {
  it('prints the help and exits 0 with --help', async () => {
    const io = memoryIo();
    assert.equal(await main(['--help'], io), 0);
    assert.equal(io.stdout.join('\n'), conformanceHelp());
  });

  it('exits 2 with the message and the help on a usage error', async () => {
    const io = memoryIo();
    assert.equal(await main(['--level', '2'], io), 2);
    assert.deepEqual(io.stdout, []);
    assert.match(
      io.stderr[0]!,
      /^--endpoint URL is required \(or --client COMMAND, to check a client\)\.\n\ncanvas-ai-conformance: [\s\S]*\nUsage: canvas-ai-conformance --endpoint URL/,
    );
  });

  it('checks a client with --client: a command that makes no request fails, with its stderr shown, and exits 1', async () => {
    const io = memoryIo();
    assert.equal(await main(['--client', 'echo "no client here: $CANVAS_AI_SERVER" >&2; exit 3'], io), 1);
    assert.match(io.stdout.join('\n'), /FAIL {2}client\.valid-requests +build: the client sent no hop/);
    assert.match(
      io.stderr[0]!,
      /^scenario build: the client exited 3; its stderr ends:\nno client here: http:\/\/127\.0\.0\.1:\d+/,
    );
    assert.match(io.stdout.join('\n'), /\n0 passed, \d+ failed$/, 'a client that sends nothing passes nothing');
  });

  it("holds a client to its claim: no level in the header, the scenarios of parts not claimed not played, each group skipped with a line, and the claim line a client's", async () => {
    const io = memoryIo();
    const played: string[] = [];
    const code = await main(
      ['--client', 'echo "$CANVAS_AI_MESSAGE" >&2; exit 3', '--revision', '1.3', '--parts', 'none'],
      {
        ...io,
        err: (line) => {
          played.push(/^scenario (\S+):/.exec(line)?.[1] ?? line);
          io.err(line);
        },
      },
    );
    assert.equal(code, 1);
    assert.deepEqual(played, [
      'build',
      'attachment',
      'refusals',
      'lost-response',
      'unavailable',
      'gone',
      'provider-error',
      'unknown-code',
      'markup',
      'markup-error',
      'csrf-refused',
      'origin-refused',
      'stop',
      'stop-late-answer',
    ]);
    const out = io.stdout.join('\n');
    assert.match(out, /\nClient conformance against echo .* \(the kit served it at http:\/\/127\.0\.0\.1:\d+\)\n/);
    assert.doesNotMatch(out, /Conformance level/);
    assert.doesNotMatch(
      out,
      /^(PASS|FAIL|SKIP) {2}client\.(content-type|usage-optional) /m,
      'the checks of what is not claimed do not run',
    );
    const skipped = out.split('\n').filter((line) => line.startsWith('SKIP  ') && line.includes(': needs '));
    assert.deepEqual(skipped, [
      'SKIP  the remove_components and move_components outputs (spec §11.4, §11.5): needs the optional part remove-move, which the client does not claim (--parts); 1 check(s) skipped (client.remove-move); 1 scenario(s) not played (remove-move)',
      "SKIP  derived props in a removal's comparison (spec §10.1, revision 1.6, with the part remove-move): needs revision 1.6; the client claims 1.3 (--revision); 1 check(s) skipped (client.derived-props); 1 scenario(s) not played (derived-props)",
      'SKIP  streamed hops (spec §6.1): needs revision 1.4; the client claims 1.3 (--revision); 2 check(s) skipped (client.content-type, client.outputs-line-applied); 4 scenario(s) not played (streamed, cut-stream, stream-stopped-after-outputs, stream-outputs-differ)',
      'SKIP  usage (spec §6.2, revision 1.4): needs revision 1.4; the client claims 1.3 (--revision); 1 check(s) skipped (client.usage-optional)',
      'SKIP  waiting turns (spec §20.1, revision 1.7): needs revision 1.7; the client claims 1.3 (--revision); 4 check(s) skipped (client.waits-declared, client.waits-for-answer, client.wait-answer, client.stop-while-waiting)',
      'SKIP  a look at the page (spec §20.3): needs revision 1.8; the client claims 1.3 (--revision); 1 check(s) skipped (client.screenshot-attachment); 2 scenario(s) not played (screenshot-sent, screenshot-unavailable)',
      'SKIP  Retry-After on 409 hop_in_progress (spec §8.3, revision 1.4): needs revision 1.4; the client claims 1.3 (--revision); 1 scenario(s) not played (busy)',
      'SKIP  waiting turns and questions (spec §20): needs revision 1.7; the client claims 1.3 (--revision); 3 scenario(s) not played (question-answered, question-dismissed, stop-while-waiting)',
      'SKIP  plans (spec §20.4): needs revision 1.8; the client claims 1.3 (--revision); 2 scenario(s) not played (plan-revised-then-approved, plan-cancelled)',
      'SKIP  approval of destructive changes (spec §20.5): needs revision 1.8; the client claims 1.3 (--revision); 2 scenario(s) not played (approval-partly-approved, approval-rejected)',
    ]);
    assert.match(out, /\nNot met: canvas-ai\/1 revision 1\.3 client \(\d+ check\(s\) failed\)\n0 passed, \d+ failed$/);
  });

  it('plays no waiting turn to a client that claims no kind of wait (an adapter without {answers}), and says so', async () => {
    const io = memoryIo();
    const played: string[] = [];
    const err = (line: string) => played.push(/^scenario (\S+):/.exec(line)?.[1] ?? line);
    assert.equal(await main(['--client', 'exit 3', '--parts', 'streaming'], { ...io, err }), 1);
    assert.deepEqual(
      played.filter((id) => /question|plan|screenshot|waiting/.test(id)),
      [],
    );
    const out = io.stdout.join('\n');
    for (const id of ['client.waits-declared', 'client.waits-for-answer', 'client.wait-answer'])
      assert.match(out, new RegExp(`^SKIP {2}${id.replace('.', '\\.')} .*the client claims no kind of wait`, 'm'));
    assert.match(out, /^SKIP {2}waiting turns and questions \(spec §20\): needs the optional part questions/m);
  });

  it('plays a scenario of every optional part, so a client claiming a part is judged on it', () => {
    // A client's claim line names what it claims: a part with no client scenario would be named unchecked.
    for (const part of PART_NAMES)
      assert.ok(
        CLIENT_SCENARIOS.some((scenario) => scenario.needs?.part === part),
        `no client scenario plays the part ${part}`,
      );
  });

  it('exits 2 when the fixtures cannot be read', async () => {
    const io = memoryIo();
    assert.equal(
      await main(['--endpoint', 'http://127.0.0.1:9/api/hop', '--fixtures', '/nonexistent/fixtures'], io),
      2,
    );
    assert.match(
      io.stderr[0]!,
      /^Cannot read the fixtures: \/nonexistent\/fixtures\/malformed-requests\.yaml: cannot be read/,
    );
  });

  it('exits 1 when a check fails, one line per check, then the summary ending "0 passed, N failed", and writes --json', async () => {
    const server = await startFakeServer(() => ({ status: 500, body: 'down' }));
    const io = memoryIo();
    try {
      assert.equal(await main(['--endpoint', `${server.url}/api/hop`, '--json', 'report.json'], io), 1);
    } finally {
      await server.close();
    }
    const lines = io.stdout.join('\n').split('\n');
    const checkLines = lines.filter((line) => /^(PASS|FAIL|SKIP) {2}/.test(line));
    const failed = checkLines.filter((line) => line.startsWith('FAIL')).length;
    const passed = checkLines.filter((line) => line.startsWith('PASS')).length;
    assert.ok(failed > 40, 'the validation rows, the turn and the schema checks fail');
    assert.equal(lines.at(-1), `${passed} passed, ${failed} failed`);
    const written = JSON.parse(io.files['report.json']!) as { failed: number; results: unknown[] };
    assert.equal(written.failed, failed);
    assert.equal(written.results.length, checkLines.length);
  });
});

describe('the built bin, inside a checkout of the repository', () => {
  const packageDir = fileURLToPath(new URL('../', import.meta.url));
  /** Runs `node dist/cli.js …` as a contributor would after the build, from the repository's root. */
  const runBin = (args: string[]) =>
    spawnSync(process.execPath, [join(packageDir, 'dist/cli.js'), ...args], {
      cwd: join(packageDir, '../..'),
      encoding: 'utf8',
    });

  it('runs with plain node after the package build (the workspace exports TypeScript sources)', async () => {
    // The package's build (package.json "build"): compile, then the fixtures and the bin's shebang.
    const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
    const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stdout + build.stderr);
    const finish = spawnSync(
      process.execPath,
      ['../../scripts/finish-build.mjs', '--fixtures', '--bin', 'dist/cli.js'],
      { cwd: packageDir, encoding: 'utf8' },
    );
    assert.equal(finish.status, 0, finish.stderr);

    const help = runBin(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Exit status: 0 every check passed, 1 a check failed, 2 a usage error/);

    const usage = runBin(['--level', '2']);
    assert.equal(usage.status, 2, 'a usage error exits 2, as from the sources');
    assert.match(usage.stderr, /--endpoint/);

    const server = await startFakeServer(() => ({ status: 500, body: 'down' }));
    try {
      const checked = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [join(packageDir, 'dist/cli.js'), '--endpoint', `${server.url}/api/hop`]);
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.on('close', (status) => resolve({ status, stdout }));
      });
      assert.equal(checked.status, 1, 'a server that answers 500 fails its checks');
      assert.match(checked.stdout, /^FAIL {2}/m);
      assert.match(checked.stdout, /\d+ passed, \d+ failed\n?$/);
    } finally {
      await server.close();
    }
  });
});
