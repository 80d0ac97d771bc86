import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { CLIENT_CHECKS } from '../src/index.js';
import {
  CLIENT_SCENARIOS,
  HERO,
  LATE_TEXT,
  MARKUP_ANSWER,
  MARKUP_ERROR,
  MARKUP_NARRATION,
} from '../src/client/client-scenarios.js';
import type { RecordedRequest, ScenarioRecording } from '../src/client/kit-server.js';

// Client checks on recordings made up here, for the paths a reference client never takes: the page an adapter writes
// to {out} (spec/conformance.md §7) missing, unreadable, not the turn's or wrong; a client that asked for no stream;
// the ways to answer 403 csrf_invalid. The kit's own runs of real clients (packages/widget/test/node/client-conformance.test.ts,
// packages/demo-editor/test/client-conformance.test.ts) show the passes and the planted bugs caught end to end.

const stopLateAnswer = CLIENT_SCENARIOS.find((scenario) => scenario.id === 'stop-late-answer')!;
const check = CLIENT_CHECKS.find((each) => each.id === 'client.stopped-response-not-applied')!;

const node = (uuid: string, component: string, props: Record<string, unknown>) => ({ uuid, component, props });
const page = (...uuids: string[]) => ({
  layout: {
    regions: {
      content: {
        components: uuids.map((uuid) =>
          uuid === HERO
            ? node(uuid, 'sdc.demo.hero', { heading: 'Fresh bread daily' })
            : node(uuid, 'sdc.demo.text', { body: 'Too late' }),
        ),
      },
    },
  },
  page: {},
});

/** The late hop as the kit recorded it: answered 200 when its cancel came, or closed by the client first. */
const hopRequest = (status: number): RecordedRequest => ({
  method: 'POST',
  path: '/api/hop',
  headers: {},
  body: {},
  startedAt: 100,
  endedAt: 900,
  status,
  fault: 'answer-late',
});

function judge(recording: Partial<ScenarioRecording>) {
  const recordings = new Map([
    [
      'stop-late-answer',
      {
        scenario: stopLateAnswer,
        requests: [hopRequest(200)],
        expectedAfter: new Map(),
        waits: new Map(),
        notOffered: [],
        stopAskedAt: 150,
        ...recording,
      } satisfies ScenarioRecording,
    ],
  ]);
  return check.judge(recordings);
}

describe('client.stopped-response-not-applied', () => {
  it('passes a page with the hero and nothing of the late hop, and says whether the kit could answer that hop', () => {
    const delivered = judge({ written: { document: page(HERO) } });
    assert.equal(delivered.status, 'pass');
    assert.match(delivered.why, /answered the stopped hop as its cancel came; nothing of it/);
    const aborted = judge({ requests: [hopRequest(0)], written: { document: page(HERO) } });
    assert.equal(aborted.status, 'pass');
    assert.match(aborted.why, /closed the stopped hop before the kit answered it/);
  });

  it('fails a page that holds the late text', () => {
    const verdict = judge({ written: { document: page(HERO, LATE_TEXT) } });
    assert.equal(verdict.status, 'fail');
    assert.match(verdict.why, new RegExp(`applied the response that came after the stop \\(${LATE_TEXT}`));
  });

  it("fails a page that is not the turn's (no hero), is no layout, or could not be read", () => {
    assert.match(judge({ written: { document: page() } }).why, /lacks hop 1's hero/);
    assert.equal(judge({ written: { document: page() } }).status, 'fail');
    const noLayout = judge({ written: { document: { page: {} } } });
    assert.equal(noLayout.status, 'fail');
    assert.match(noLayout.why, /no layout the kit can read/);
    const unreadable = judge({ written: { problem: 'not JSON (Unexpected end of JSON input)' } });
    assert.equal(unreadable.status, 'fail');
    assert.match(unreadable.why, /is not JSON/);
  });

  it('skips a client whose adapter writes no page, and fails one that never reached the held hop', () => {
    const unwritten = judge({});
    assert.equal(unwritten.status, 'skip');
    assert.match(unwritten.why, /wrote no page to \{out\}/);
    const { stopAskedAt: _, ...neverStopped } = {
      scenario: stopLateAnswer,
      requests: [],
      expectedAfter: new Map(),
      waits: new Map(),
      notOffered: [],
      stopAskedAt: 0,
    } satisfies ScenarioRecording;
    const recordings = new Map([['stop-late-answer', neverStopped as ScenarioRecording]]);
    assert.equal(check.judge(recordings).status, 'fail');
    assert.equal(check.judge(new Map()).status, 'skip');
  });
});

describe('client.outputs-line-applied', () => {
  const outputsLine = CLIENT_CHECKS.find((each) => each.id === 'client.outputs-line-applied')!;
  const scenario = (id: string) => CLIENT_SCENARIOS.find((each) => each.id === id)!;
  const hop = (fault: RecordedRequest['fault'], accept: string, startedAt = 100): RecordedRequest => ({
    ...hopRequest(200),
    headers: { accept },
    fault,
    startedAt,
  });
  const recordingOf = (id: string, requests: RecordedRequest[], extra: Partial<ScenarioRecording> = {}) =>
    ({
      scenario: scenario(id),
      requests,
      expectedAfter: new Map(),
      waits: new Map(),
      notOffered: [],
      ...extra,
    }) satisfies ScenarioRecording;
  const NDJSON = 'application/x-ndjson, application/json';

  it("fails a page written after the stop without the outputs line's text, and a hop after differing outputs", () => {
    const verdict = outputsLine.judge(
      new Map([
        [
          'stream-stopped-after-outputs',
          recordingOf('stream-stopped-after-outputs', [hop('stop-after-outputs', NDJSON)], {
            stopAskedAt: 600,
            written: { document: page(HERO) },
          }),
        ],
        [
          'stream-outputs-differ',
          recordingOf('stream-outputs-differ', [hop('outputs-differ', NDJSON), hop(undefined, NDJSON, 900)]),
        ],
      ]),
    );
    assert.equal(verdict.status, 'fail');
    assert.match(verdict.why, /text \(kit-text-0002\) is not on the page written after the stop/);
    assert.match(verdict.why, /stream-outputs-differ: after a response line whose outputs differ/);
  });

  it('skips a client that asked for no stream, and names what it could not judge beside a pass', () => {
    const json = new Map([
      [
        'stream-stopped-after-outputs',
        recordingOf('stream-stopped-after-outputs', [hop('stop-after-outputs', 'application/json')]),
      ],
      ['stream-outputs-differ', recordingOf('stream-outputs-differ', [hop('outputs-differ', 'application/json')])],
    ]);
    assert.equal(outputsLine.judge(json).status, 'skip');
    json.set('stream-outputs-differ', recordingOf('stream-outputs-differ', [hop('outputs-differ', NDJSON)]));
    const verdict = outputsLine.judge(json);
    assert.equal(verdict.status, 'pass');
    assert.match(
      verdict.why,
      /the turn ended .*; not judged: stream-stopped-after-outputs: the client asked for no stream/,
    );
  });
});

describe('client.branches-on-code', () => {
  const branches = CLIENT_CHECKS.find((each) => each.id === 'client.branches-on-code')!;
  const request = (extra: Partial<RecordedRequest>): RecordedRequest => ({
    method: 'POST',
    path: '/api/hop',
    headers: {},
    body: { hop: 2 },
    hop: { success: true, data: { hop: 2 } } as RecordedRequest['hop'],
    startedAt: 0,
    endedAt: 0,
    status: 200,
    ...extra,
  });
  const token: RecordedRequest = { ...request({}), method: 'GET', path: '/api/token', issuedToken: 'fresh' };
  const refused = request({ status: 403, fault: 'csrf-refused' });
  const judgeCsrf = (requests: RecordedRequest[]) =>
    branches.judge(
      new Map([
        [
          'csrf-refused',
          {
            scenario: CLIENT_SCENARIOS.find((scenario) => scenario.id === 'csrf-refused')!,
            requests,
            expectedAfter: new Map(),
            waits: new Map(),
            notOffered: [],
          } satisfies ScenarioRecording,
        ],
      ]),
    );

  it('passes a new token then the same hop, and a turn that ends at the 403', () => {
    assert.equal(judgeCsrf([refused, token, request({})]).status, 'pass');
    const ended = judgeCsrf([refused]);
    assert.equal(ended.status, 'pass');
    assert.match(
      ended.why,
      /csrf-refused: the turn ended at the 403 csrf_invalid.*; not judged: the origin-refused scenario did not run/,
    );
  });

  it('says so when a client ended the turn on both 403s: it did not tell the codes apart', () => {
    const origin = request({ status: 403, fault: 'origin-refused' });
    const scenario = (id: string, requests: RecordedRequest[]): [string, ScenarioRecording] => [
      id,
      {
        scenario: CLIENT_SCENARIOS.find((each) => each.id === id)!,
        requests,
        expectedAfter: new Map(),
        waits: new Map(),
        notOffered: [],
      },
    ];
    const verdict = branches.judge(
      new Map([scenario('csrf-refused', [refused]), scenario('origin-refused', [origin])]),
    );
    assert.equal(verdict.status, 'pass');
    assert.match(verdict.why, /the two codes were not told apart, nor needed to be$/);
    const retried = branches.judge(
      new Map([scenario('csrf-refused', [refused]), scenario('origin-refused', [origin, token, request({})])]),
    );
    assert.equal(retried.status, 'fail');
    assert.match(retried.why, /^origin-refused: after 403 the client sent hop 2 of the turn again/);
  });

  it('fails the hop sent again without a new token, changed, or the next hop instead', () => {
    assert.match(judgeCsrf([refused, request({})]).why, /without fetching a new token/);
    assert.match(judgeCsrf([refused, token, request({ body: { hop: 2, changed: true } })]).why, /not the same request/);
    const skipped = judgeCsrf([
      refused,
      token,
      request({ hop: { success: true, data: { hop: 3 } } as RecordedRequest['hop'] }),
    ]);
    assert.equal(skipped.status, 'fail');
    assert.match(skipped.why, /after 403 csrf_invalid on hop 2 the client sent hop 3/);
  });
});

describe('client.shown-as-text', () => {
  const shownCheck = CLIENT_CHECKS.find((each) => each.id === 'client.shown-as-text')!;
  const anyHop: RecordedRequest = { ...hopRequest(200), fault: undefined };
  const judgeShown = (markup: ScenarioRecording['shown'], error: ScenarioRecording['shown']) =>
    shownCheck.judge(
      new Map(
        (
          [
            ['markup', markup],
            ['markup-error', error],
          ] as const
        ).map(([id, shown]) => [
          id,
          {
            scenario: CLIENT_SCENARIOS.find((scenario) => scenario.id === id)!,
            requests: [anyHop],
            expectedAfter: new Map(),
            waits: new Map(),
            notOffered: [],
            ...(shown ? { shown } : {}),
          } satisfies ScenarioRecording,
        ]),
      ),
    );

  it('passes each text as sent, lines broken anywhere; fails one rendered', () => {
    const wrapped = (text: string) => text.replaceAll(' ', '\n  ');
    assert.equal(
      judgeShown({ text: `${wrapped(MARKUP_NARRATION)}\n${MARKUP_ANSWER}` }, { text: wrapped(MARKUP_ERROR) }).status,
      'pass',
    );
    const rendered = judgeShown(
      { text: `${MARKUP_NARRATION}\n${MARKUP_ANSWER.replace(/<[^>]*>/g, '')}` },
      { text: MARKUP_ERROR },
    );
    assert.equal(rendered.status, 'fail');
    assert.match(rendered.why, /^markup: the person was not shown "Built: <i>one<\/i>/);
  });

  it('skips an adapter that writes no text, and fails one that wrote it in one scenario only', () => {
    assert.equal(judgeShown(undefined, undefined).status, 'skip');
    const half = judgeShown({ text: `${MARKUP_NARRATION} ${MARKUP_ANSWER}` }, undefined);
    assert.equal(half.status, 'fail');
    assert.match(half.why, /markup-error: the adapter wrote no text to \{shown\} in this scenario/);
  });
});
