import {
  answerImage,
  decidedReplies,
  type Fixtures,
  type Scenario,
  scenarioAnswer,
} from '@canvas-ai/protocol/scenario';
import { answerResult } from '@canvas-ai/protocol/server';
import { HopResponse, type HopRequestInput, type WaitingOf } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { scenarioOutcomes } from '../scenario-runs.js';

/** A scenario whose hop `waitsAt` (1-based) waits for a screenshot that its answer sends as an image. */
interface ScreenshotProbe {
  scenario: Scenario;
  fixtures: Fixtures;
  waitsAt: number;
  image: { file: string; media_type: string; bytes: Uint8Array };
}

/** The first scenario (file order) whose turn waits for a screenshot and answers with an image, or why none. */
function screenshotProbe(context: CheckContext): ScreenshotProbe | { skip: string } {
  const fixtures = context.requireFixtures();
  for (const scenario of fixtures.scenarios) {
    const index = scenario.hops.findIndex((hop) => hop.waiting?.kind === 'screenshot');
    const image = index >= 0 ? answerImage(scenario.hops[index]!.answer) : undefined;
    const bytes = image && fixtures.attachments[image.file];
    if (image && bytes && scenario.attachments.length === 0)
      return { scenario, fixtures, waitsAt: index + 1, image: { ...image, bytes } };
  }
  return { skip: 'no scenario waits for a screenshot that it answers with an image' };
}

/** The hop after the wait: `answer` (default the scenario's), sent with `images` (default its image) as multipart. */
async function sendAnswer(
  context: CheckContext,
  probe: ScreenshotProbe,
  id: string,
  waiting: WaitingOf<'screenshot'>,
  options: { answer?: Record<string, unknown> | null; images?: number } = {},
): Promise<Exchange> {
  const scripted = scenarioAnswer(waiting, probe.scenario.hops[probe.waitsAt - 1]!.answer!);
  // The kit sends answers a server must refuse too: not always a valid `answer`.
  const request: Omit<HopRequestInput, 'answer'> & { answer?: unknown } = {
    ...scenarioHop(probe.scenario, probe.fixtures, id, probe.waitsAt + 1),
    ...(options.answer === null ? {} : { answer: options.answer ?? scripted }),
  };
  const images = options.images ?? 1;
  if (images === 0) return context.client.postHop(request);
  const form = new FormData();
  form.append('request', JSON.stringify(request));
  for (let index = 0; index < images; index += 1) {
    const name = probe.image.file.split('/').at(-1) ?? 'screenshot.png';
    form.append('attachments', new Blob([probe.image.bytes.slice()], { type: probe.image.media_type }), name);
  }
  return context.client.postForm(form);
}

/** The probe's turn at its wait: the waiting hop's response, and the narration of the hop before it. */
interface Waited {
  response: HopResponse;
  waiting: WaitingOf<'screenshot'>;
  before: string;
}

/** Sends the probe's hops up to the waiting one (with `capabilities` of its own, if given). */
async function untilWaiting(
  context: CheckContext,
  probe: ScreenshotProbe,
  id: string,
  capabilities?: { waits: string[] },
): Promise<{ hops: Exchange[]; waited?: Waited } | CheckVerdict> {
  const hops: Exchange[] = [];
  for (let hop = 1; hop <= probe.waitsAt; hop += 1) {
    const request = scenarioHop(probe.scenario, probe.fixtures, id, hop, { undeclared: capabilities !== undefined });
    if (hop === 1 && capabilities) request.capabilities = capabilities;
    const sent = await context.client.postHop(request);
    if (sent.status !== 200) return fail(`${probe.scenario.id} hop ${hop} answered ${describeAnswer(sent)}`);
    hops.push(sent);
  }
  const parsed = HopResponse.safeParse(hops.at(-1)!.body);
  if (!parsed.success) return fail(`${probe.scenario.id} hop ${probe.waitsAt} is not a HopResponse`);
  const waiting = parsed.data.should_continue ? parsed.data.waiting : undefined;
  const before = String((hops.at(-2)?.body as { progress?: unknown } | undefined)?.progress ?? '');
  return { hops, ...(waiting?.kind === 'screenshot' ? { waited: { response: parsed.data, waiting, before } } : {}) };
}

/** The text of the decision the script makes once the answer came (`{{answer}}` worded as spec §20.3 says). */
function decisionAfterAnswer(scenario: Scenario, waitsAt: number): string | undefined {
  const decided = decidedReplies(scenario, scenario.hops, () => false);
  const reply = decided.slice(waitsAt).find((index) => index !== undefined);
  const asked = scenario.hops[waitsAt - 1];
  if (reply === undefined || !asked?.waiting || !asked.answer) return undefined;
  const result = answerResult(asked.waiting, scenarioAnswer(asked.waiting, asked.answer));
  return scenario.replies[reply]!.text.replaceAll('{{answer}}', result).trim();
}

/** What a hop's answer says, narration and final message together. */
function saidIn(body: unknown): string {
  const { progress, message } = (body ?? {}) as { progress?: unknown; message?: unknown };
  return `${String(progress ?? '')}\n${String(message ?? '')}`;
}

/** A check that drives the probe's turn to its wait, judges it, and cancels what it left. */
function atTheWait(
  check: Omit<ConformanceCheck, 'family' | 'run' | 'level'>,
  judge: (context: CheckContext, probe: ScreenshotProbe, id: string, waited: Waited) => Promise<CheckVerdict>,
): ConformanceCheck {
  return defineCheck({
    ...check,
    level: 2,
    async run(context) {
      const probe = screenshotProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId(check.id.replace('.', '-'));
      try {
        const reached = await untilWaiting(context, probe, id);
        if ('status' in reached) return reached;
        if (!reached.waited)
          return fail(
            `${probe.scenario.id} hop ${probe.waitsAt}, which asks for a screenshot, carries no such \`waiting\``,
          );
        return await judge(context, probe, id, reached.waited);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  });
}

/** A look at the page (revision 1.8, spec §20.3). */
export const screenshotChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'screenshots.undeclared-not-offered',
    level: 2,
    title:
      'A turn whose client declares waits but not `screenshot` never waits for one: the screenshot scenario played declaring only `question` gets no `waiting`.',
    spec: {
      section: 'waitingTurns',
      must: 'A server MUST NOT offer the model a tool that makes a turn wait for a kind the turn’s client did not declare.',
    },
    async run(context) {
      const probe = screenshotProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId('screenshots-undeclared');
      try {
        const reached = await untilWaiting(context, probe, id, { waits: ['question'] });
        if ('status' in reached) return reached;
        const waited = reached.hops.findIndex((hop) => (hop.body as { waiting?: unknown }).waiting !== undefined);
        if (waited >= 0)
          return fail(`${probe.scenario.id} hop ${waited + 1} made a client that declared only question wait`);
        return pass(`${probe.scenario.id}: hops 1–${probe.waitsAt} declaring only question never waited`);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
  atTheWait(
    {
      id: 'screenshots.waiting-hop',
      title:
        'The hop that executes request_screenshot answers with `waiting` of kind screenshot (what to show, its narration unchanged) and calls no model: the next decision comes with the image.',
      spec: { section: 'waitingTurns', must: 'A hop that executed such a call MUST NOT call the model.' },
    },
    async (context, probe, id, { response, waiting, before }) => {
      const problems: string[] = [];
      const expected = probe.scenario.hops[probe.waitsAt - 1]!.waiting;
      const difference = jsonDifference(expected, {
        kind: waiting.kind,
        call_id: waiting.call_id,
        screenshot: waiting.screenshot,
      });
      if (difference) problems.push(`\`waiting\` is not what the scenario asks for: ${difference}`);
      if (response.progress !== before)
        problems.push(`the waiting hop's progress ${JSON.stringify(response.progress)} added model text`);
      const next = await sendAnswer(context, probe, id, waiting);
      const decision = decisionAfterAnswer(probe.scenario, probe.waitsAt);
      if (next.status !== 200) problems.push(`the hop with the image answered ${describeAnswer(next)}`);
      else if (decision !== undefined && !saidIn(next.body).includes(decision))
        problems.push(`the hop with the image does not say ${JSON.stringify(decision)}: no decision came with it`);
      return problems.length === 0
        ? pass(`${probe.scenario.id}: hop ${probe.waitsAt} waited without a decision; the next one came with the image`)
        : fail(problems.join('; '));
    },
  ),
  defineCheck({
    id: 'screenshots.answer-reaches-model',
    level: 2,
    title:
      'The host’s answer (the image, or that it cannot) becomes the call’s result, worded as the spec says: the scenarios that exercise it narrate it back through {{answer}}.',
    spec: {
      section: 'screenshots',
      must: 'The result of the call is one line, which a server MUST word exactly so.',
    },
    async run(context) {
      const id = 'screenshots.answer-reaches-model';
      const outcomes = (await scenarioOutcomes(context)).filter(({ scenario }) => scenario.exercises.includes(id));
      if (outcomes.length === 0) return skip(`no scenario names ${id} in exercises`);
      const problems = outcomes.flatMap(({ scenario, run, error }) => {
        if (error) return [`${scenario.id}: ${error}`];
        const waitsAt = scenario.hops.findIndex((hop) => hop.waiting?.kind === 'screenshot') + 1;
        const decision = waitsAt === 0 ? undefined : decisionAfterAnswer(scenario, waitsAt);
        if (decision === undefined) return [`${scenario.id} waits for no screenshot the script reads back`];
        const answered = run?.hops[waitsAt];
        if (answered?.status !== 200)
          return [
            `${scenario.id} hop ${waitsAt + 1}, which brings the answer, answered ${answered?.status ?? 'nothing'}`,
          ];
        return saidIn(answered.body).includes(decision)
          ? []
          : [`${scenario.id} hop ${waitsAt + 1} does not say ${JSON.stringify(decision)}: the model did not read it`];
      });
      const names = outcomes.map(({ scenario }) => scenario.id).join(', ');
      return problems.length === 0
        ? pass(`${names}: the model read the host's answer`)
        : fail(problems.slice(0, 3).join('; '));
    },
  }),
  atTheWait(
    {
      id: 'screenshots.answer-checked',
      title:
        'An answer without its image gets 400 missing_field (attachments), an unavailable one with an image 400 invalid_request (answer.unavailable), a question’s answer 400 invalid_request (answer.kind); nothing changed: the image is then served.',
      spec: {
        section: 'screenshots',
        must: 'A server MUST refuse with 400, changing nothing, an answer with `unavailable: false` and no image.',
      },
    },
    async (context, probe, id, { waiting }) => {
      const problems: string[] = [];
      const call = { call_id: waiting.call_id };
      const expect = async (what: string, sent: Promise<Exchange>, code: string, field: string) => {
        const got = await sent;
        if (got.status !== 400 || errorCodeOf(got.body) !== code || errorFieldOf(got.body) !== field)
          problems.push(`${what}: ${describeAnswer(got)}, expected 400 ${code} (${field})`);
      };
      await expect(
        'no image',
        sendAnswer(context, probe, id, waiting, { answer: { kind: 'screenshot', ...call }, images: 0 }),
        'missing_field',
        'attachments',
      );
      await expect(
        'unavailable with an image',
        sendAnswer(context, probe, id, waiting, { answer: { kind: 'screenshot', ...call, unavailable: true } }),
        'invalid_request',
        'answer.unavailable',
      );
      await expect(
        "a question's answer",
        sendAnswer(context, probe, id, waiting, { answer: { kind: 'question', ...call, choices: [0] }, images: 0 }),
        'invalid_request',
        'answer.kind',
      );
      const right = await sendAnswer(context, probe, id, waiting);
      if (right.status !== 200) problems.push(`the image after them: ${describeAnswer(right)}`);
      return problems.length === 0
        ? pass('each refused with 400; the image was then served')
        : fail(problems.join('; '));
    },
  ),
];
