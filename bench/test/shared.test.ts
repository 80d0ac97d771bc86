import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countComponents, findDuplicateUuid, Layout } from '@canvas-ai/protocol';
import { parseHopRequestJson } from '@canvas-ai/protocol/server';
import { measurePrefixes, promptText } from '../src/prompt-cache.js';
import { formatTable } from '../src/table.js';
import { judgeTargets } from '../src/targets.js';
import { loadBenchScenario, turnBodies } from '../src/shared/bench-turn.js';
import { ANCHOR_UUID, benchLayout } from '../src/shared/layout.js';
import { type RecordedRequest, startRecordingModel } from '../src/shared/recording-model.js';
import { median, percentile } from '../src/shared/stats.js';

// biome-ignore lint/suspicious/noExplicitAny: a decoded JSON body, read field by field
type JsonBody = any;

describe('bench layouts', () => {
  for (const size of [1, 2, 5, 10, 101, 1_000]) {
    it(`has exactly ${size} components, valid and unique, the anchor first`, () => {
      const layout = benchLayout(size);
      assert.equal(countComponents(layout), size);
      assert.equal(findDuplicateUuid(layout), undefined);
      assert.equal(layout.regions.content!.components[0]!.uuid, ANCHOR_UUID);
      assert.ok(Layout.safeParse(layout).success);
    });
  }
});

describe('the bench turn', () => {
  it('has eleven hops (ten decisions, the answer after the last placement is reported) whose bodies the protocol accepts, each with the turn id and the previous outputs reported', async () => {
    const scenario = await loadBenchScenario();
    const bodies = turnBodies(scenario, benchLayout(10));
    assert.equal(bodies.hops, 11);
    for (let hop = 1; hop <= bodies.hops; hop += 1) {
      const parsed = parseHopRequestJson(bodies.body(hop, `turn-${hop}`));
      assert.ok(parsed.success, `hop ${hop} parses`);
      assert.equal(parsed.data.request_id, `turn-${hop}`);
      assert.equal(parsed.data.hop, hop);
      assert.equal(parsed.data.messages !== undefined, hop === 1, 'messages on hop 1 only');
      // Hop 1 parks call_1, hop 2 returns its output, hop 3 reports it applied.
      const reported = hop === 1 ? undefined : hop === 2 ? [] : [`call_${hop - 2}`];
      assert.deepEqual(
        parsed.data.apply_results?.map((result) => result.call_id),
        reported,
      );
    }
  });
});

describe('statistics', () => {
  it('takes the median of odd and even counts and nearest-rank percentiles', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
    assert.equal(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
      99,
    );
    assert.throws(() => median([]), RangeError);
  });
});

describe('the report', () => {
  it('aligns numbers right and text left', () => {
    assert.equal(
      formatTable(
        ['name', 'n', 'what'],
        [
          ['a', 1, 'x'],
          ['bb', 10, 'yy'],
        ],
        [2],
      ),
      'name   n  what\n----  --  ----\na      1  x\nbb    10  yy',
    );
  });

  it('judges only the targets whose figures were measured', () => {
    const targets = judgeTargets({
      schema: 1,
      generated_at: '',
      size: 'tiny',
      machine: { node: '20', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
      widget: {
        bundles: [
          { name: 'widget-own-code', description: '', files: [], min_bytes: 40_000, gzip_bytes: 14_999 },
          // 166 ÷ 150 = 1.107: over the self-contained module's 1.1 × deep-chat.
          { name: 'self-contained', description: '', files: [], min_bytes: 1, gzip_bytes: 166 },
          { name: 'deep-chat', description: '', files: [], min_bytes: 1, gzip_bytes: 150 },
        ],
        host_bundles: [
          // A bundled row that would pass: the target is judged on lit and deep-chat external only.
          {
            bundler: 'esbuild',
            entry: 'element',
            dependencies: 'bundled',
            min_bytes: 1,
            gzip_bytes: 1,
            modules: 1,
            forbidden_modules: [],
          },
          {
            bundler: 'esbuild',
            entry: 'element',
            dependencies: 'external',
            min_bytes: 1,
            gzip_bytes: 25_001,
            modules: 1,
            forbidden_modules: [],
          },
          {
            bundler: 'esbuild',
            entry: 'loop',
            dependencies: 'external',
            min_bytes: 1,
            gzip_bytes: 12_000,
            modules: 1,
            forbidden_modules: [],
          },
        ],
        client: { browser: '', repetitions: 1, rows: [] },
      },
    });
    assert.deepEqual(
      targets.map((target) => target.met),
      [null, null, true, null, null, false, null, true, false, null, null, null, null, null, null, null],
    );
  });

  it('judges the prompt-cache targets on the share reused and the total', () => {
    const base = {
      schema: 1 as const,
      generated_at: '',
      size: 'tiny' as const,
      machine: { node: '24', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
    };
    const cache = (share: number, total: number) => ({
      scenario: 'cookie-shop',
      streamed: false,
      calls: [],
      total_chars: total,
      prefix_chars: 0,
      share,
      share_cold: 0,
    });
    const judged = (share: number, total: number) =>
      judgeTargets({ ...base, prompt_cache: cache(share, total) })
        .filter((target) => target.id.startsWith('prompt_cache'))
        .map((target) => target.met);
    assert.deepEqual(judged(0.85, 78_700), [true, true]);
    assert.deepEqual(judged(0.849, 78_701), [false, false]);
  });

  it('judges the attack targets at the full size only, on the worst row', () => {
    const attack = (scale: number) => ({
      repetitions: 1,
      concurrent: 8,
      probe_every_ms: 5,
      scale,
      busy_core: true,
      rows: [],
      worst_stall_ms: 99,
      worst_healthz_ms: 101,
    });
    const base = {
      schema: 1 as const,
      generated_at: '',
      machine: { node: '24', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
    };
    const full = judgeTargets({ ...base, size: 'full', attack_stall: attack(1) });
    assert.deepEqual(
      full.filter((target) => target.id.startsWith('attack')).map((target) => [target.id, target.value, target.met]),
      [
        ['attack_single_stall_ms', 99, true],
        ['attack_healthz_ms', 101, false],
      ],
    );
    const tiny = judgeTargets({ ...base, size: 'tiny', attack_stall: attack(1 / 64) });
    assert.deepEqual(
      tiny.filter((target) => target.id.startsWith('attack')).map((target) => target.met),
      [null, null],
    );
  });
});

describe('the cost-growth target', () => {
  it('judges the worst growth at the full size only: at most 5× for 4× the input', () => {
    const base = {
      schema: 1 as const,
      generated_at: '',
      machine: { node: '24', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
    };
    const cost = (scale: number, worst: number) => ({
      repetitions: 1,
      scale,
      cpu_source: 'process.cpuUsage',
      rows: [],
      worst_growth: worst,
    });
    const judged = (size: 'full' | 'tiny', scale: number, worst: number) =>
      judgeTargets({ ...base, size, cost_growth: cost(scale, worst) }).find(
        (target) => target.id === 'cost_growth_4x',
      )!;
    assert.deepEqual([judged('full', 1, 5).met, judged('full', 1, 5.01).met], [true, false]);
    assert.equal(judged('full', 1, 3.2).value, 3.2);
    assert.equal(judged('tiny', 1 / 16, 9).met, null);
  });
});

describe('the recording Chat Completions endpoint', () => {
  const reply = {
    text: 'Adding a hero below the first row, then a footer.',
    tool_calls: [{ id: 'call_1', name: 'place_components', arguments: '{"reference_uuid": "{{placed.1}}"}' }],
  };
  const ask = (url: string, body: object) =>
    fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });

  it('answers one JSON completion without stream, the placed uuids resolved, and records the body', async () => {
    const model = await startRecordingModel([reply], () => ['uuid-a']);
    try {
      const completion = (await (await ask(model.baseURL, {})).json()) as JsonBody;
      const message = completion.choices[0].message;
      assert.equal(message.content, reply.text);
      assert.deepEqual(message.tool_calls, [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'place_components', arguments: '{"reference_uuid": "uuid-a"}' },
        },
      ]);
      assert.equal(model.requests.length, 1);
      assert.deepEqual(model.requests[0]!.body.messages, [{ role: 'user', content: 'hi' }]);
    } finally {
      await model.close();
    }
  });

  it('answers server-sent chunks for stream: true that add up to the same reply, then [DONE]', async () => {
    const model = await startRecordingModel([reply], () => ['uuid-a']);
    try {
      const response = await ask(model.baseURL, { stream: true });
      assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
      const events = (await response.text()).split('\n\n').filter(Boolean);
      assert.equal(events.at(-1), 'data: [DONE]');
      const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')) as JsonBody);
      const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice: JsonBody) => choice.delta));
      assert.ok(chunks.filter((chunk) => chunk.choices.length > 0 && chunk.choices[0].delta.content).length > 1);
      assert.equal(deltas.map((delta) => delta.content ?? '').join(''), reply.text);
      assert.deepEqual(
        deltas.flatMap((delta) => delta.tool_calls ?? []).map((call: JsonBody) => call.function.arguments),
        ['{"reference_uuid": "uuid-a"}'],
      );
      assert.equal(chunks.at(-2)!.choices[0].finish_reason, 'tool_calls');
    } finally {
      await model.close();
    }
  });
});

describe('prompt prefixes', () => {
  const request = (tools: unknown[], ...contents: string[]): RecordedRequest => {
    const body = { tools, messages: contents.map((content) => ({ role: 'user', content })) };
    return { text: JSON.stringify(body), body };
  };

  it('counts per call the characters shared with the previous call, the first call against the earlier turn', () => {
    const earlier = request([], 'system', 'another question');
    const first = request([], 'system', 'build');
    const second = request([], 'system', 'build', 'result');
    const third = request([], 'system', 'build, changed', 'result');
    const measured = measurePrefixes([earlier, first, second, third]);
    const [p0, p1, p2, p3] = [earlier, first, second, third].map(promptText);
    assert.deepEqual(
      measured.calls.map((call) => call.prompt_chars),
      [p1!.length, p2!.length, p3!.length],
    );
    assert.equal(measured.calls[0]!.prefix_chars, p0!.indexOf('another'));
    assert.equal(measured.calls[1]!.prefix_chars, p1!.length, 'an appended message keeps the whole previous prompt');
    assert.equal(measured.calls[2]!.prefix_chars, p2!.indexOf('build') + 'build'.length);
    assert.equal(measured.total_chars, p1!.length + p2!.length + p3!.length);
    const reused = measured.calls.reduce((sum, call) => sum + call.prefix_chars, 0);
    assert.equal(measured.share, Math.round((reused / measured.total_chars) * 1000) / 1000);
    assert.equal(
      measured.share_cold,
      Math.round(((reused - measured.calls[0]!.prefix_chars) / measured.total_chars) * 1000) / 1000,
    );
  });
});
