// The client checks that read what the adapter writes besides its client's requests: the page the client holds once
// the turn has ended ({out}) and the text it showed the person ({shown}), as spec/conformance.md §7 describes them.
import { findComponent, type Layout, layoutProblem } from '@canvas-ai/protocol';
import { type CheckVerdict, fail, pass, skip } from '../check.js';
import { partNeeds } from '../claims.js';
import {
  HERO,
  LATE_TEXT,
  MARKUP_ANSWER,
  MARKUP_ERROR,
  MARKUP_NARRATION,
  STOP_AND_REVERT,
  TEXT,
} from './client-scenarios.js';
import type { ScenarioRecording } from './kit-server.js';
import { askedForStream, type ClientCheck, combineVerdicts, hopOf, hopsOf, overScenarios } from './recorded-hops.js';

/** The page an adapter wrote to `{out}` (spec/conformance.md §7), or why the kit cannot judge it. */
type WrittenPage = { layout: Layout } | { skip: string } | { problem: string };

/**
 * The layout of the page the adapter wrote to `{out}` after `recording`'s turn: why it is missing (`skip`), or why it
 * cannot be the turn's page (`problem`: unreadable, no layout, hop 1's hero missing).
 */
function writtenPage(recording: ScenarioRecording): WrittenPage {
  const scenario = recording.scenario.id;
  const { written } = recording;
  if (!written)
    return { skip: `${scenario}: the adapter wrote no page to {out}, so what the client applied is unseen` };
  if ('problem' in written) return { problem: `${scenario}: the page written to {out} is ${written.problem}` };
  const layout = (written.document as { layout?: unknown } | null)?.layout;
  const problem = layoutProblem(layout);
  if (problem) return { problem: `${scenario}: the page written to {out} has no layout the kit can read (${problem})` };
  if (!findComponent(layout as Layout, HERO))
    return {
      problem: `${scenario}: the page written to {out} lacks hop 1's hero (${HERO}): it is not the turn's page`,
    };
  return { layout: layout as Layout };
}

/** spec §6.1 in the `stream-stopped-after-outputs` scenario: the outputs line's text is on the page after the stop. */
function outputsLineKept(recording: ScenarioRecording | undefined): CheckVerdict {
  if (!recording) return skip('the stream-stopped-after-outputs scenario did not run');
  const held = hopsOf(recording).find((request) => request.fault === 'stop-after-outputs');
  if (!held) return fail('stream-stopped-after-outputs: the client never reached hop 2');
  if (!askedForStream(held)) return skip('stream-stopped-after-outputs: the client asked for no stream');
  if (recording.stopAskedAt === undefined)
    return fail('stream-stopped-after-outputs: the client ended before the kit asked it to stop');
  const page = writtenPage(recording);
  if ('skip' in page) return skip(page.skip);
  if ('problem' in page) return fail(page.problem);
  return findComponent(page.layout, TEXT)
    ? pass('stream-stopped-after-outputs: the outputs line applied when it came (on the page after the stop)')
    : fail(
        `stream-stopped-after-outputs: the outputs line's text (${TEXT}) is not on the page written after the stop: its outputs were not applied when the line arrived`,
      );
}

/** spec §6.1 in the `stream-outputs-differ` scenario: no hop of the turn after the differing response. */
function endsOnDifferingOutputs(recording: ScenarioRecording | undefined): CheckVerdict {
  if (!recording) return skip('the stream-outputs-differ scenario did not run');
  const hops = hopsOf(recording);
  const index = hops.findIndex((request) => request.fault === 'outputs-differ');
  if (index < 0) return fail('stream-outputs-differ: the client never reached hop 2');
  if (!askedForStream(hops[index]!)) return skip('stream-outputs-differ: the client asked for no stream');
  const later = hops.slice(index + 1);
  if (later.length === 0)
    return pass("stream-outputs-differ: the turn ended when the response's outputs differed from the outputs line");
  const next = hopOf(later[0]!)?.hop ?? '?';
  return fail(
    `stream-outputs-differ: after a response line whose outputs differ from its outputs line the client sent hop ${next} (${later.length} hop request${later.length === 1 ? '' : 's'} in all)`,
  );
}

/** The scenarios whose texts hold markup (spec §9, §7). */
const MARKUP_SCENARIOS = ['markup', 'markup-error'];

/** `text` with every run of whitespace one space: a client may wrap or break lines as it shows them. */
const collapsed = (text: string) => text.replace(/\s+/g, ' ').trim();

export const WRITTEN_CHECKS: readonly ClientCheck[] = [
  {
    id: 'client.stopped-response-not-applied',
    title:
      "Applies nothing of the response to a hop in flight when the person stopped: the page the adapter writes ({out}) has hop 1's hero and not the late hop's text.",
    spec: {
      section: 'stopAndRevert',
      must: 'The response to a hop in flight when the person stopped MUST NOT be applied.',
    },
    needs: STOP_AND_REVERT,
    judge: (recordings) => {
      const recording = recordings.get('stop-late-answer');
      if (!recording) return skip('the stop-late-answer scenario did not run');
      if (recording.stopAskedAt === undefined)
        return fail('stop-late-answer: the client never reached the hop the kit holds');
      const page = writtenPage(recording);
      if ('skip' in page) return skip(page.skip);
      if ('problem' in page) return fail(page.problem);
      const { layout } = page;
      const late = hopsOf(recording).find((request) => request.fault === 'answer-late');
      const delivered = late?.status === 200;
      if (findComponent(layout, LATE_TEXT))
        return fail(
          `stop-late-answer: the client applied the response that came after the stop (${LATE_TEXT} is on its page)`,
        );
      const how = delivered
        ? 'the kit answered the stopped hop as its cancel came'
        : late?.status === 0
          ? 'the client closed the stopped hop before the kit answered it'
          : `the kit answered the stopped hop ${late?.status ?? 'not at all'} (no cancel came while it was open)`;
      return pass(`stop-late-answer: ${how}; nothing of it is on the client's page`);
    },
  },
  {
    id: 'client.shown-as-text',
    title:
      'Shows narration, an answer and an error message holding HTML and markdown as the text they are: the text the adapter writes to {shown} has each verbatim.',
    spec: { section: 'narration', must: 'A client MUST escape them before putting them in HTML.' },
    judge: (recordings) => {
      const ran = MARKUP_SCENARIOS.flatMap((id) => recordings.get(id) ?? []);
      if (ran.length > 0 && ran.every((recording) => !recording.shown))
        return skip('the adapter wrote no text to {shown}, so what the client showed is unseen');
      return overScenarios(
        recordings,
        (recording) => {
          const texts = recording.scenario.id === 'markup' ? [MARKUP_NARRATION, MARKUP_ANSWER] : [MARKUP_ERROR];
          const { shown } = recording;
          if (!shown) return 'the adapter wrote no text to {shown} in this scenario';
          if ('problem' in shown) return `the text written to {shown} is ${shown.problem}`;
          const seen = collapsed(shown.text);
          const missing = texts.filter((text) => !seen.includes(collapsed(text)));
          return missing.length === 0
            ? undefined
            : `the person was not shown ${missing.map((text) => JSON.stringify(text)).join(' nor ')} as it is (markup rendered, or left out)`;
        },
        'markup in narration, the answer and an error message shown as text',
        MARKUP_SCENARIOS,
      );
    },
  },
  {
    id: 'client.outputs-line-applied',
    title:
      "Applies a streamed hop's outputs line when it arrives (a stop before the response leaves them on the page written to {out}), and ends the turn when the response's outputs differ from them.",
    spec: { section: 'stream', must: "A client MUST apply the `outputs` line's outputs when the line arrives" },
    needs: partNeeds('streaming'),
    judge: (recordings) =>
      combineVerdicts([
        outputsLineKept(recordings.get('stream-stopped-after-outputs')),
        endsOnDifferingOutputs(recordings.get('stream-outputs-differ')),
      ]),
  },
];
