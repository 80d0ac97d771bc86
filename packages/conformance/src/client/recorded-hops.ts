// What the client checks read from the kit's recordings: the hops of a scenario, and a verdict over scenarios.
import { type HopRequest, NDJSON_MEDIA_TYPE } from '@canvas-ai/protocol';
import { type CheckVerdict, pass, skip, fail } from '../check.js';
import type { CheckNeeds } from '../claims.js';
import type { SpecRef } from '../spec-refs.js';
import type { RecordedRequest, ScenarioRecording } from './kit-server.js';

/** What every client check reads: each scenario's recording, by scenario id. */
export type Recordings = ReadonlyMap<string, ScenarioRecording>;

/** One check of a client: what a passing client does, the rule, and how the recordings are judged. */
export interface ClientCheck {
  /** `client.<name>`; cited in spec/conformance.md. */
  id: string;
  title: string;
  spec: SpecRef;
  /** What a client must claim for the check to run (default: revision 1.0); the rest is skipped with a line. */
  needs?: CheckNeeds;
  judge(recordings: Recordings): CheckVerdict;
}

/** The hops a client sent in one scenario, in the order they arrived. */
export function hopsOf(recording: ScenarioRecording): RecordedRequest[] {
  return recording.requests.filter((request) => request.method === 'POST' && request.path === '/api/hop');
}

/** Whether the client asked for this request's answer as a stream (spec §6.1). */
export function askedForStream(request: RecordedRequest): boolean {
  return (request.headers.accept ?? '').includes(NDJSON_MEDIA_TYPE);
}

/** The parsed hop of a recorded request, when it was one the kit could read. */
export function hopOf(request: RecordedRequest): HopRequest | undefined {
  return request.hop?.success ? request.hop.data : undefined;
}

/** Whether the kit answered this hop with a whole 200 response the client could read. */
export function answered(request: RecordedRequest): boolean {
  return request.status === 200 && request.fault !== 'lose' && request.fault !== 'cut-stream';
}

/** The first failure of `judgeOne` over the scenarios, or a pass naming how many were judged. */
export function overScenarios(
  recordings: Recordings,
  judgeOne: (recording: ScenarioRecording) => string | undefined,
  passed: string,
  only?: readonly string[],
): CheckVerdict {
  let judged = 0;
  for (const recording of recordings.values()) {
    if (only && !only.includes(recording.scenario.id)) continue;
    judged += 1;
    // A client that made no hop has shown none of the rules: nothing passes for it.
    const problem = hopsOf(recording).length === 0 ? 'the client sent no hop' : judgeOne(recording);
    if (problem) return fail(`${recording.scenario.id}: ${problem}`);
  }
  if (judged === 0) return skip(`no scenario of ${only?.join(', ') ?? 'the kit'} ran`);
  return pass(`${passed} (${judged} scenario${judged === 1 ? '' : 's'})`);
}

/**
 * One verdict from the verdicts of several scenarios of a check: it fails when any fails (every failure named), is
 * skipped when every one is, and else passes, naming what each passing scenario showed and what was not judged.
 */
export function combineVerdicts(verdicts: readonly CheckVerdict[]): CheckVerdict {
  const why = (status: CheckVerdict['status']) =>
    verdicts.filter((verdict) => verdict.status === status).map((verdict) => verdict.why);
  if (why('fail').length > 0) return fail(why('fail').join('; '));
  if (why('pass').length === 0) return skip(why('skip').join('; '));
  return pass([...why('pass'), ...why('skip').map((line) => `not judged: ${line}`)].join('; '));
}
