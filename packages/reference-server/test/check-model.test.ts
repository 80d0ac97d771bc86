import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './support/child-cleanup.js';
import { type FakeBehaviour, startFakeChatCompletions } from './support/fake-chat-completions.js';

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `canvas-ai-server check-model …` in its own process, as a person runs it. */
function checkModel(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'check-model', ...args], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, CANVAS_AI_PROVIDER: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.once('close', (code) => done({ code, stdout, stderr })),
  );
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** Runs check-model against a fake endpoint playing `queue` (the tool request, the stream, its repeat). */
async function againstFake(queue: FakeBehaviour[], env: Record<string, string> = {}) {
  const fake = await startFakeChatCompletions(queue);
  cleanups.push(fake.close);
  const run = await checkModel(['--provider', 'openai'], {
    CANVAS_AI_OPENAI_BASE_URL: fake.baseURL,
    CANVAS_AI_OPENAI_MODEL: 'fake-model',
    ...env,
  });
  return { ...run, fake };
}

const LOOKUP = { id: 'call_1', name: 'get_component_details', arguments: '{"component_ids":["sdc.demo.hero"]}' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});
/** A greeting streamed in three pieces a little apart, with usage (`cached` prompt tokens from the cache). */
const greeting = (cached: number) => ({
  chunks: [
    chunk({ content: 'Hello, ' }),
    chunk({ content: 'baker! ' }),
    chunk({ content: 'Let us begin.' }),
    chunk({}, 'stop'),
    {
      choices: [],
      usage: { prompt_tokens: 1800, completion_tokens: 9, prompt_tokens_details: { cached_tokens: cached } },
    },
    '[DONE]',
  ],
  gapMs: 30,
});

/** No stack trace, ever: a verdict line says what failed. */
function assertNoStackTrace(output: string): void {
  assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+/);
}

describe('canvas-ai-server check-model, as a process against a fake endpoint', () => {
  it('says in plain words that a good model is usable, one line per check, and exits 0', async () => {
    const { code, stdout, fake } = await againstFake([{ tool_calls: [LOOKUP] }, greeting(0), greeting(1536)]);
    assert.equal(code, 0, stdout);
    assert.match(
      stdout,
      /^ok\s+tool calls work: get_component_details with arguments that fit its parameters \(\d+ ms\)$/m,
    );
    assert.match(stdout, /^ok\s+one call at a time is honoured/m);
    assert.match(stdout, /^ok\s+streaming works: 3 pieces, the first after \d+ ms, the whole answer after \d+ ms$/m);
    assert.match(stdout, /^ok\s+cached tokens are reported: 1536 of 1800 prompt tokens came from the cache/m);
    assert.match(stdout, /^ok\s+usable with canvas-ai-server$/m);
    const [tools, stream, repeat] = fake.requests.map((request) => request.body);
    assert.equal(tools.parallel_tool_calls, false);
    assert.equal(stream.stream, true);
    assert.deepEqual(repeat.messages, stream.messages, 'the same long prefix twice');
    assert.ok(stream.messages[0].content.length > 6_000, 'long enough for a prompt cache');
  });

  it('warns, and still exits 0, when calls come two at once, nothing streams, or nothing is cached', async () => {
    const { code, stdout } = await againstFake([
      { tool_calls: [LOOKUP, { ...LOOKUP, id: 'call_2' }] },
      { json: { choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }] } },
      greeting(0),
    ]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^warning\s+one call at a time is not honoured: 2 calls in one reply/m);
    assert.match(stdout, /^warning\s+streaming: the answer came in one piece after \d+ ms/m);
    assert.match(stdout, /^warning\s+no cached tokens on the repeat \(1800 prompt tokens/m);
  });

  const faults: Array<{ row: string; queue: FakeBehaviour[]; env?: Record<string, string>; verdict: RegExp }> = [
    {
      row: 'no tool call',
      queue: [{ content: 'I would look them up.' }],
      verdict: /^FAIL\s+tool calls: the model answered in text and called no tool/m,
    },
    {
      row: 'arguments that do not fit',
      queue: [{ tool_calls: [{ ...LOOKUP, arguments: '{"ids": "hero"}' }] }, greeting(0), greeting(0)],
      verdict: /^FAIL\s+tool calls: the model called "get_component_details" with arguments \{"ids": "hero"\}/m,
    },
    {
      row: '500 past the retries',
      queue: [
        { status: 500, message: 'boom' },
        { status: 500, message: 'boom again' },
      ],
      verdict:
        /^FAIL\s+tool calls: the model call failed\. The model endpoint .* answered 500: boom again\. \(after 2 tries\)/m,
    },
    {
      row: '401',
      queue: [{ status: 401, message: 'Incorrect API key provided' }],
      verdict: /^FAIL\s+tool calls: the model call failed\. .*answered 401: .*Check CANVAS_AI_OPENAI_API_KEY/m,
    },
    {
      row: 'a model slower than the timeout',
      queue: [{ hang: true }],
      env: { CANVAS_AI_OPENAI_TIMEOUT_MS: '300' },
      verdict: /^FAIL\s+tool calls: the model call failed\. The model at .* did not answer within 300 ms/m,
    },
    {
      row: 'a stream cut in the middle',
      queue: [{ tool_calls: [LOOKUP] }, { chunks: [chunk({ content: 'Hel' })], ending: 'cut' }],
      verdict: /^FAIL\s+streaming: the model call failed\. The model stream (broke off|ended before)/m,
    },
  ];
  for (const { row, queue, env, verdict } of faults) {
    it(`gives a clear verdict and exits 1 for ${row}`, async () => {
      const { code, stdout, stderr } = await againstFake(queue, env);
      assert.equal(code, 1, stdout + stderr);
      assert.match(stdout, verdict);
      assert.match(stdout, /^FAIL\s+not usable/m);
      assertNoStackTrace(stdout + stderr);
    });
  }

  it('says how to reach an endpoint that is not running, and exits 1', async () => {
    const fake = await startFakeChatCompletions([]);
    await fake.close();
    const { code, stdout, stderr } = await checkModel(['--provider', 'openai'], {
      CANVAS_AI_OPENAI_BASE_URL: fake.baseURL,
      CANVAS_AI_OPENAI_MODEL: 'm',
    });
    assert.equal(code, 1);
    assert.match(
      stdout,
      /^FAIL\s+tool calls: the model call failed\. Could not reach the model at .*CANVAS_AI_OPENAI_BASE_URL/m,
    );
    assertNoStackTrace(stdout + stderr);
  });

  it('exits 2 for usage errors: an unknown flag, the scripted provider, a missing variable', async () => {
    const unknown = await checkModel(['--bogus'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--bogus/);
    assert.match(unknown.stderr, /canvas-ai-server check-model/, 'with its help');
    const scripted = await checkModel([], {});
    assert.equal(scripted.code, 2);
    assert.match(scripted.stderr, /check-model checks a real model: pass --provider openai/);
    const missing = await checkModel(['--provider', 'openai'], {
      CANVAS_AI_OPENAI_MODEL: '',
      CANVAS_AI_OPENAI_API_KEY: '',
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /CANVAS_AI_OPENAI_MODEL: not set/);
    assertNoStackTrace(unknown.stderr + scripted.stderr + missing.stderr);
    const help = await checkModel(['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes: 0 usable, 1 not usable/);
  });
});
