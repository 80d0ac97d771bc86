// The client checks of waiting turns (spec §20): the kit's scenarios make the turn wait, the adapter is the person
// who answers ({answers}, spec/conformance.md §7), and the hops the client then sends are judged.
import { LIMITS, type WaitAnswer, type Waiting } from '@canvas-ai/protocol';
import { type CheckVerdict, skip } from '../check.js';
import { type CheckNeeds, partNeeds } from '../claims.js';
import type { ScriptedAnswer } from './client-scenarios.js';
import type { RecordedRequest, ScenarioRecording } from './kit-server.js';
import { type ClientCheck, hopOf, hopsOf, overScenarios, type Recordings } from './recorded-hops.js';

/** Waiting turns came with revision 1.7; each kind is an optional part, so a check skips when no kind was played. */
const WAITING: CheckNeeds = { since: '1.7', what: 'waiting turns (spec §20.1, revision 1.7)' };

/** The scenarios that ran and make their turn wait (those with scripted answers). */
function waitingScenarios(recordings: Recordings, kind?: Waiting['kind']): string[] {
  return [...recordings.values()]
    .filter(({ scenario }) =>
      scenario.hops.some((step) => step.kind === 'outputs' && step.wait && (!kind || step.wait.kind === kind)),
    )
    .map(({ scenario }) => scenario.id);
}

/** A check over the waiting scenarios that ran; skipped, saying so, when the client claims no kind of wait. */
function overWaits(
  recordings: Recordings,
  judgeOne: (recording: ScenarioRecording) => string | undefined,
  passed: string,
  kind?: Waiting['kind'],
): CheckVerdict {
  const ran = waitingScenarios(recordings, kind);
  if (ran.length === 0) return skip('no waiting scenario ran: the client claims no kind of wait (--parts)');
  return overScenarios(recordings, judgeOne, passed, ran);
}

/** The hops numbered `hop` a client sent, in the order they arrived. */
function hopsNumbered(recording: ScenarioRecording, hop: number): RecordedRequest[] {
  return hopsOf(recording).filter((request) => hopOf(request)?.hop === hop);
}

/** The waits the kit offered in a scenario, in order, each with the person's scripted answer to it. */
function waitsWithAnswers(
  recording: ScenarioRecording,
): Array<{ hop: number; waiting: Waiting; scripted?: ScriptedAnswer }> {
  return [...recording.waits].map(([hop, waiting], index) => ({
    hop,
    waiting,
    scripted: recording.scenario.answers?.[index],
  }));
}

/** How a client's answer differs from what the person chose; undefined when it carries just that. */
function answerDiffers(answer: WaitAnswer, scripted: ScriptedAnswer, waiting: Waiting): string | undefined {
  if (answer.kind === 'question' && scripted.kind === 'question') {
    const dismissed = scripted.dismissed ?? false;
    if (answer.dismissed !== dismissed)
      return `dismissed: ${answer.dismissed}, the person ${dismissed ? 'dismissed it' : 'answered'}`;
    const picked = [...answer.choices].sort((a, b) => a - b).join(',');
    const chose = [...(scripted.choices ?? [])].sort((a, b) => a - b).join(',');
    if (picked !== chose) return `choices [${picked}], the person picked [${chose}]`;
    if ((answer.text ?? '').trim() !== (scripted.text ?? '').trim())
      return `text "${answer.text ?? ''}", the person wrote "${scripted.text ?? ''}"`;
    return undefined;
  }
  if (answer.kind === 'plan' && scripted.kind === 'plan') {
    if (answer.decision !== scripted.decision)
      return `decision ${answer.decision}, the person chose ${scripted.decision}`;
    if ((answer.feedback ?? '').trim() !== (scripted.feedback ?? '').trim())
      return `feedback "${answer.feedback ?? ''}", the person wrote "${scripted.feedback ?? ''}"`;
    return undefined;
  }
  if (answer.kind === 'screenshot' && scripted.kind === 'screenshot') {
    const unavailable = scripted.image === null;
    return answer.unavailable === unavailable
      ? undefined
      : `unavailable: ${answer.unavailable}, the host ${unavailable ? 'has no screenshot' : 'supplied one'}`;
  }
  if (answer.kind === 'approval' && scripted.kind === 'approval' && waiting.kind === 'approval') {
    const ids = waiting.approval.changes.map((change) => change.call_id);
    const approved = [...answer.approved].sort().join(',');
    const ticked = scripted.approved
      .map((index) => ids[index])
      .sort()
      .join(',');
    return approved === ticked ? undefined : `approved [${approved}], the person left [${ticked}] ticked`;
  }
  return `kind ${answer.kind}, the person answered a ${scripted.kind}`;
}

export const WAIT_CHECKS: readonly ClientCheck[] = [
  {
    id: 'client.waits-declared',
    title: 'Declares on hop 1, in capabilities.waits, each kind of wait it claims to answer (the kit then offers it).',
    spec: {
      section: 'waitingTurns',
      must: 'A client that can answer a kind of wait declares it on hop 1 in `capabilities.waits`.',
    },
    needs: WAITING,
    judge: (recordings) =>
      overWaits(
        recordings,
        (recording) => {
          const [missing] = recording.notOffered;
          if (!missing) return undefined;
          const declared = recording.declaredWaits ?? [];
          return `hop 1 declares waits [${declared.join(', ')}], not ${missing.kind}: the kit offered no wait at hop ${missing.hop}`;
        },
        'hop 1 declared each kind of wait the scenario plays',
      ),
  },
  {
    id: 'client.waits-for-answer',
    title:
      'Sends no hop while the turn waits until the person answered; then exactly one hop N+1, with the answer (and never one when they stop instead).',
    spec: {
      section: 'waitingTurns',
      must: 'The client MUST NOT send the next hop before the person has answered or dismissed it.',
    },
    needs: WAITING,
    judge: (recordings) =>
      overWaits(
        recordings,
        (recording) => {
          for (const { hop, waiting, scripted } of waitsWithAnswers(recording)) {
            const next = hopsNumbered(recording, hop + 1);
            if (!scripted) {
              // The person never answers: nothing may follow the waiting hop.
              if (next.length > 0) return `hop ${hop + 1} sent though the person never answered the ${waiting.kind}`;
              continue;
            }
            if (next.length === 0)
              return `no hop ${hop + 1} after the person answered the ${waiting.kind} of hop ${hop}`;
            const early = next.find((request) => hopOf(request)?.answer === undefined);
            if (early)
              return `hop ${hop + 1} sent without an answer to the ${waiting.kind}: before the person answered`;
            if (next.length > 1) return `hop ${hop + 1} sent ${next.length} times after one answer`;
          }
          return undefined;
        },
        'each waiting hop followed by one hop with the answer, or by none where the person never answered',
      ),
  },
  {
    id: 'client.wait-answer',
    title:
      "Answers a wait with its kind and call_id and what the person chose: the picked choices, text or dismissal; the plan's decision and feedback; a screenshot or unavailable; the changes left ticked.",
    spec: {
      section: 'waitingTurns',
      must: "It then sends the next hop as usual with `answer`, which names the wait's `call_id` (the table of its kind, spec §20.2, spec §20.3, spec §20.4, spec §20.5).",
    },
    needs: WAITING,
    judge: (recordings) =>
      overWaits(
        recordings,
        (recording) => {
          for (const { hop, waiting, scripted } of waitsWithAnswers(recording)) {
            if (!scripted) continue;
            for (const request of hopsNumbered(recording, hop + 1)) {
              const answer = hopOf(request)?.answer;
              if (!answer) continue;
              if (answer.kind !== waiting.kind)
                return `hop ${hop + 1} answers a ${answer.kind}; the turn waits for a ${waiting.kind}`;
              if (answer.call_id !== waiting.call_id)
                return `hop ${hop + 1} answers call ${answer.call_id}; the turn waits for ${waiting.call_id}`;
              const differs = answerDiffers(answer, scripted, waiting);
              if (differs) return `hop ${hop + 1}'s answer: ${differs}`;
            }
          }
          return undefined;
        },
        "each answer of the wait's kind and call, carrying what the person chose",
      ),
  },
  {
    id: 'client.screenshot-attachment',
    title:
      "Sends a screenshot's answer as multipart with exactly one image attachment within the limits, an unavailable one as JSON, and every later hop as JSON.",
    spec: {
      section: 'screenshots',
      must: "An answer with `unavailable: false` carries the image as the hop's one `attachments` part; an `unavailable` answer is sent as JSON.",
    },
    needs: partNeeds('screenshots'),
    judge: (recordings) =>
      overWaits(
        recordings,
        (recording) => {
          for (const { hop, waiting } of waitsWithAnswers(recording)) {
            if (waiting.kind !== 'screenshot') continue;
            for (const request of hopsNumbered(recording, hop + 1)) {
              const answer = hopOf(request)?.answer;
              if (answer?.kind !== 'screenshot') continue;
              const files = request.attachments;
              if (answer.unavailable) {
                if (files !== undefined) return `hop ${hop + 1} answers unavailable, but as multipart`;
                continue;
              }
              if (files === undefined) return `hop ${hop + 1} answers with a screenshot but is sent as JSON, no image`;
              if (files.length !== 1) return `hop ${hop + 1} carries ${files.length} attachments; a screenshot is one`;
              const [file] = files;
              if (!file!.image) return `hop ${hop + 1}'s attachment is no PNG, JPEG, GIF or WebP by its bytes`;
              if (file!.size === 0 || file!.size > LIMITS.maxAttachmentBytes)
                return `hop ${hop + 1}'s screenshot is ${file!.size} bytes, outside 1 to ${LIMITS.maxAttachmentBytes}`;
            }
            const later = hopsOf(recording).find(
              (request) => (hopOf(request)?.hop ?? 0) > hop + 1 && request.attachments !== undefined,
            );
            if (later) return `hop ${hopOf(later)?.hop} after the screenshot's answer sent as multipart, not as JSON`;
          }
          return undefined;
        },
        'the image as the one attachment of the answering hop, everything else JSON',
        'screenshot',
      ),
  },
  {
    id: 'client.stop-while-waiting',
    title: 'When the person stops while the turn waits: DELETE /api/hop/{request_id} sent, no hop after.',
    spec: {
      section: 'waitingTurns',
      must: "A client's Stop while a question or a plan is shown sends it (`DELETE /api/hop/{request_id}`).",
    },
    needs: WAITING,
    judge: (recordings) => {
      const ran = [...recordings.values()]
        .filter((recording) => recording.scenario.stopWhileWaiting)
        .map((recording) => recording.scenario.id);
      if (ran.length === 0)
        return skip('no scenario that stops while the turn waits ran: the client claims no kind of wait');
      return overScenarios(
        recordings,
        (recording) => {
          const [waited] = recording.waits.keys();
          if (waited === undefined) return 'the turn never waited (hop 1 declared no such wait)';
          if (recording.stopAskedAt === undefined) return 'the kit never asked the client to stop';
          const turn = hopOf(hopsOf(recording)[0]!)?.request_id ?? '';
          const cancel = recording.requests.find(
            (request) => request.method === 'DELETE' && request.path === `/api/hop/${encodeURIComponent(turn)}`,
          );
          if (!cancel) return `no DELETE /api/hop/${turn} after the stop`;
          const after = hopsOf(recording).filter((request) => (hopOf(request)?.hop ?? 0) > waited);
          return after.length > 0 ? `${after.length} hop request(s) after the waiting hop ${waited}` : undefined;
        },
        'the cancel sent, no hop after the waiting one',
        ran,
      );
    },
  },
];
