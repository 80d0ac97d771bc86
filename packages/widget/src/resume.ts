/**
 * Going on with a turn after the page reloaded (spec §18): ask the server where the turn stands
 * (`GET <endpoint>/<request_id>`, spec §8.6), then resume it with the document as it is now, show the final answer
 * that was missed, or close it. Framework-free, like the loop.
 */
import {
  errorMessage,
  TurnStatusResponseChecker,
  type ApplyResult,
  type FinalHopResponse,
  type Waiting,
} from '@canvas-ai/protocol';
import { startTurn, type Turn, type TurnOptions } from './hop-loop.js';
import type { TurnChanges } from './turn-changes.js';

/** What a client keeps of a running turn to resume it: enough for the next request, nothing of the page. */
export interface ResumableTurn {
  requestId: string;
  /** The agent picked for the turn; absent → the main agent. */
  agent?: string | undefined;
  /** The latest hop whose response was applied. */
  hop: number;
  /** What the host reported for that hop's outputs: the next request's `apply_results`. */
  applyResults?: ApplyResult[] | undefined;
  /** What the turn had changed on the page, for its undo. */
  changes?: TurnChanges | undefined;
}

/** Where a turn stands, as the status endpoint says, or `unknown` when it could not say. */
export type TurnStanding =
  | { state: 'active'; hop: number; progress: string; waiting?: Waiting | undefined }
  | { state: 'finished'; hop: number; response: FinalHopResponse }
  | { state: 'gone'; status: number }
  | { state: 'unknown'; why: string };

/** How {@link resumeTurn} went on. */
export type ResumeOutcome =
  /** The turn goes on: `turn` is running from hop `hop + 1`. */
  | { kind: 'resumed'; turn: Turn; standing: TurnStanding }
  /** The turn had ended: its final response, to show once. */
  | { kind: 'finished'; response: FinalHopResponse }
  /** The server no longer holds the turn (cancelled, failed, expired, or another session's). */
  | { kind: 'gone' };

/** Options of {@link turnStanding}: the hop endpoint and how to reach it. */
export interface StandingOptions {
  endpoint: string;
  fetch?: typeof fetch | undefined;
  credentials?: RequestCredentials | undefined;
  /** The status URL; default `<endpoint>/<request_id>`, like the cancel. */
  statusUrl?: ((requestId: string) => string) | undefined;
}

/** Asks the server where the turn `requestId` stands; never throws. */
export async function turnStanding(requestId: string, options: StandingOptions): Promise<TurnStanding> {
  const url =
    options.statusUrl?.(requestId) ?? `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(requestId)}`;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'GET',
      headers: { Accept: 'application/json' },
      credentials: options.credentials ?? 'same-origin',
    });
  } catch (error) {
    return { state: 'unknown', why: `the server could not be reached: ${errorMessage(error)}` };
  }
  if (response.status === 404 || response.status === 410) return { state: 'gone', status: response.status };
  // A revision 1.1 server has no such endpoint (405): the next hop itself will say where the turn stands.
  if (response.status !== 200) return { state: 'unknown', why: `the status answered HTTP ${response.status}` };
  const parsed = TurnStatusResponseChecker.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) return { state: 'unknown', why: 'the status is not in the protocol’s format' };
  const status = parsed.data;
  return status.state === 'active'
    ? { state: 'active', hop: status.hop, progress: status.progress, waiting: status.waiting }
    : { state: 'finished', hop: status.hop, response: status.response };
}

/**
 * Resumes `saved` (spec §18): on `active` (or when the server cannot say, e.g. a revision 1.1 server) starts the loop
 * at hop `saved.hop + 1` with the current document: a repeat of a hop the server already answered gets its stored
 * response, whose outputs are applied now. On `finished` returns the final response; on 404/410 `gone`.
 * `options` are the loop's, as for a new turn (its `messages` and `attachments` are not sent).
 */
export async function resumeTurn(
  saved: ResumableTurn,
  options: Omit<TurnOptions, 'requestId' | 'resume' | 'agent' | 'attachments'>,
): Promise<ResumeOutcome> {
  return takeUpTurn(saved, await turnStanding(saved.requestId, options), options);
}

/** What {@link resumeTurn} does once it knows where the turn stands: go on, show the missed answer, or close. */
export function takeUpTurn(
  saved: ResumableTurn,
  standing: TurnStanding,
  options: Omit<TurnOptions, 'requestId' | 'resume' | 'agent' | 'attachments'>,
): ResumeOutcome {
  if (standing.state === 'gone') return { kind: 'gone' };
  if (standing.state === 'finished') return { kind: 'finished', response: standing.response };
  const turn = startTurn({
    ...options,
    requestId: saved.requestId,
    agent: saved.agent,
    resume: {
      hop: saved.hop,
      applyResults: saved.applyResults,
      changes: saved.changes,
      // Asked again only when the page had applied the waiting hop; else sending that hop again gets it (spec §18).
      waiting: standing.state === 'active' && standing.hop === saved.hop ? standing.waiting : undefined,
    },
  });
  return { kind: 'resumed', turn, standing };
}
