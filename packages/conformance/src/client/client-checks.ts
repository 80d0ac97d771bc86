import { isDeepStrictEqual } from 'node:util';
import { type ComponentNode, type Layout, layoutProblem } from '@canvas-ai/protocol';
import { type CheckVerdict, fail, pass, skip } from '../check.js';
import { partNeeds } from '../claims.js';
import { TWO_403_CODES, DERIVED_IN_REMOVAL } from './client-scenarios.js';
import type { RecordedRequest, ScenarioRecording } from './kit-server.js';
import {
  answered,
  askedForStream,
  type ClientCheck,
  combineVerdicts,
  hopOf,
  hopsOf,
  overScenarios,
  type Recordings,
} from './recorded-hops.js';
import { WAIT_CHECKS } from './wait-checks.js';
import { WRITTEN_CHECKS } from './written-checks.js';

export type { ClientCheck, Recordings } from './recorded-hops.js';

/**
 * After 403 `csrf_invalid` (the `csrf-refused` scenario): no hop, or the same hop again once a new token was fetched
 * (spec §4.2), and the turn on to its answer.
 */
function retriedWithNewToken(recording: ScenarioRecording | undefined): CheckVerdict {
  if (!recording) return skip('the csrf-refused scenario did not run');
  const found = afterFault(recording);
  if (!found) return fail('csrf-refused: the client never reached the hop the kit refuses (hop 2)');
  const refusedHop = hopOf(found.faulted)?.hop;
  const [again] = found.later;
  if (!again) return pass('csrf-refused: the turn ended at the 403 csrf_invalid (no new token tried)');
  if (hopOf(again)?.hop !== refusedHop)
    return fail(
      `csrf-refused: after 403 csrf_invalid on hop ${refusedHop} the client sent hop ${hopOf(again)?.hop ?? '?'}`,
    );
  const between = recording.requests.slice(
    recording.requests.indexOf(found.faulted) + 1,
    recording.requests.indexOf(again),
  );
  if (!isDeepStrictEqual(again.body, found.faulted.body))
    return fail(`csrf-refused: hop ${refusedHop} sent again after 403 csrf_invalid, but not the same request`);
  if (!between.some((request) => request.issuedToken))
    return fail(`csrf-refused: hop ${refusedHop} sent again after 403 csrf_invalid without fetching a new token`);
  return pass(`csrf-refused: a new token fetched, then hop ${refusedHop} sent again`);
}

/** The requests of the turn after the first hop answered with `fault`, and that hop. */
function afterFault(recording: ScenarioRecording): { faulted: RecordedRequest; later: RecordedRequest[] } | undefined {
  const hops = hopsOf(recording);
  const index = hops.findIndex((request) => request.fault !== undefined);
  if (index < 0) return undefined;
  return { faulted: hops[index]!, later: hops.slice(index + 1) };
}

/** No hop after a refusal that ends the turn (`gone`, `provider-error`, `unknown-code`). */
function noHopAfter(scenario: string, recordings: Recordings): CheckVerdict {
  const recording = recordings.get(scenario);
  if (!recording) return skip(`the ${scenario} scenario did not run`);
  const found = afterFault(recording);
  if (!found) return fail(`${scenario}: the client never reached the hop the kit refuses (hop 2)`);
  if (found.later.length > 0) {
    const next = hopOf(found.later[0]!);
    return fail(
      `${scenario}: after ${found.faulted.status} the client sent hop ${next?.hop ?? '?'} of the turn again (${found.later.length} more hop request${found.later.length === 1 ? '' : 's'})`,
    );
  }
  return pass(`${scenario}: no hop after the ${found.faulted.status}`);
}

/** `nodes` without the values of the props each lists in `derived`: the host computes those (spec §10.1). */
function nodesWithoutDerived(nodes: readonly ComponentNode[]): ComponentNode[] {
  return nodes.map((node) => {
    const derived = new Set(node.derived ?? []);
    const props = Object.fromEntries(Object.entries(node.props).filter(([name]) => !derived.has(name)));
    const slots = node.slots
      ? Object.fromEntries(Object.entries(node.slots).map(([name, children]) => [name, nodesWithoutDerived(children)]))
      : undefined;
    return { ...node, props, ...(slots ? { slots } : {}) };
  });
}

/** `layout` as a host's document is compared: a derived prop's value is the host's to fill in (spec §10.1). */
function withoutDerived(layout: Layout): Layout {
  return {
    ...layout,
    regions: Object.fromEntries(
      Object.entries(layout.regions).map(([name, region]) => [
        name,
        { ...region, components: nodesWithoutDerived(region.components) },
      ]),
    ),
  };
}

/** How a hop's apply results differ from one per output of the hop before, as the shared reducer decides them. */
function reportsDiffer(recording: ScenarioRecording): string | undefined {
  for (const request of hopsOf(recording)) {
    const hop = hopOf(request);
    const expected = hop && recording.expectedAfter.get(hop.hop - 1);
    if (!hop || !expected) continue;
    const sent = (hop.apply_results ?? []).map((result) => `${result.call_id}:${result.status}`);
    const want = expected.results.map((result) => `${result.call_id}:${result.status}`);
    if (!isDeepStrictEqual(sent, want))
      return `hop ${hop.hop} reports [${sent.join(', ')}], expected [${want.join(', ')}]`;
  }
  return undefined;
}

export const CLIENT_CHECKS: readonly ClientCheck[] = [
  {
    id: 'client.valid-requests',
    title: 'Sends every hop as a HopRequest the schema accepts, with a layout that keeps the layout model.',
    spec: { section: 'hostBoundary', must: 'A client MUST NOT send a document that breaks the layout model.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          for (const request of hopsOf(recording)) {
            if (request.hop?.success) {
              const problem = layoutProblem(request.hop.data.context.current_layout);
              if (problem) return `hop ${request.hop.data.hop}'s layout: ${problem}`;
              continue;
            }
            const issue = request.hop?.error.issues[0];
            return issue
              ? `a hop the schema refuses: ${issue.path.join('.') || '(root)'}: ${issue.message}`
              : 'a hop that is not JSON';
          }
          return undefined;
        },
        'every hop parses as a HopRequest',
      ),
  },
  {
    id: 'client.attachments-hop-1',
    title: "Sends the person's attachments with hop 1 only (multipart), and every later hop as JSON without them.",
    spec: { section: 'attachments', must: 'Later hops MUST be sent as JSON.' },
    judge: (recordings) => {
      const verdict = overScenarios(
        recordings,
        (recording) => {
          // The one exception, a screenshot's answer (spec §4.3, §20.3), is judged by client.screenshot-attachment.
          const later = hopsOf(recording).find(
            (request) =>
              (hopOf(request)?.hop ?? 1) > 1 &&
              request.attachments !== undefined &&
              hopOf(request)?.answer?.kind !== 'screenshot',
          );
          if (later)
            return `hop ${hopOf(later)?.hop ?? '?'} sent as multipart${later.attachments!.length > 0 ? ` with ${later.attachments!.length} attachment(s)` : ''}, not as JSON`;
          return undefined;
        },
        'every hop after the first sent as JSON',
      );
      if (verdict.status !== 'pass') return verdict;
      const recording = recordings.get('attachment');
      const first = recording && hopsOf(recording).find((request) => hopOf(request)?.hop === 1);
      const sent = first?.attachments?.length ?? 0;
      // A client may have no way to attach a file (a generator): then the rule holds for it trivially, and says so.
      return pass(
        sent > 0
          ? `${verdict.why}; the attachment scenario's hop 1 carried ${sent} file(s)`
          : `${verdict.why}; the client attached no file in the attachment scenario`,
      );
    },
  },
  {
    id: 'client.session',
    title:
      'Asks GET /api/token first, and sends the session cookie and the newest X-CSRF-Token it was issued with every hop and cancel.',
    spec: { section: 'csrf', must: 'The client MUST send the session cookie with every request.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const writes = recording.requests.filter(
            (request) => request.method === 'POST' || request.method === 'DELETE',
          );
          const first = recording.requests.findIndex((request) => request.path === '/api/token');
          const firstWrite = recording.requests.findIndex((request) => writes.includes(request));
          if (first < 0 || (firstWrite >= 0 && first > firstWrite)) return 'no GET /api/token before the first hop';
          // The token of each request is the newest the kit had issued when it arrived (a refetch replaces it).
          let token: string | undefined;
          for (const request of recording.requests) {
            if (request.issuedToken) token = request.issuedToken;
            if (!writes.includes(request)) continue;
            const cookies = (request.headers.cookie ?? '').split(/;\s*/);
            if (!recording.cookie || !cookies.includes(recording.cookie))
              return `${request.method} ${request.path} without the session cookie the kit set`;
            if (request.headers['x-csrf-token'] !== token)
              return `${request.method} ${request.path} without the CSRF token the kit issued last`;
          }
          return undefined;
        },
        'the token first, then the cookie and the token on every hop and cancel',
      ),
  },
  {
    id: 'client.hop-numbers',
    title:
      'Numbers the hops of a turn 1, 2, 3 under one request_id, and sends hop N+1 only after the response to hop N.',
    spec: { section: 'replay', must: 'A client MUST NOT skip ahead to hop + 1 without a response.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const hops = hopsOf(recording);
          const first = hops[0] && hopOf(hops[0]);
          if (!first) return undefined;
          if (first.hop !== 1) return `the turn started with hop ${first.hop}`;
          let latest = hops[0]!;
          for (const request of hops.slice(1)) {
            const hop = hopOf(request);
            const before = hopOf(latest)!;
            if (!hop) continue;
            if (hop.request_id !== first.request_id)
              return `hop ${hop.hop} under request_id ${hop.request_id}, not the turn's ${first.request_id}`;
            if (hop.hop === before.hop + 1 && !answered(latest))
              return `hop ${hop.hop} sent though hop ${before.hop} got no response (${latest.fault ?? latest.status})`;
            if (hop.hop !== before.hop && hop.hop !== before.hop + 1) return `hop ${hop.hop} after hop ${before.hop}`;
            latest = request;
          }
          return undefined;
        },
        'hops numbered without gaps, each after the response to the one before',
      ),
  },
  {
    id: 'client.agent-repeated',
    title: "Repeats hop 1's agent on every hop of the turn (or leaves it out on every hop).",
    spec: { section: 'request', must: '`agent` MUST be the same on every hop of the turn.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const hops = hopsOf(recording)
            .map(hopOf)
            .filter((hop) => hop !== undefined);
          const agent = hops[0]?.agent;
          const other = hops.find((hop) => hop.agent !== agent);
          return other
            ? `hop ${other.hop} names agent ${other.agent ?? '(none)'}, hop 1 ${agent ?? '(none)'}`
            : undefined;
        },
        'the same agent on every hop',
      ),
  },
  {
    id: 'client.one-at-a-time',
    title: 'Sends one hop of a turn at a time: never a request while the previous one is unanswered.',
    spec: { section: 'turn', must: 'The client MUST NOT send hop N+1 before it has received the response to hop N.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const hops = hopsOf(recording);
          for (let index = 1; index < hops.length; index += 1) {
            const before = hops[index - 1]!;
            const request = hops[index]!;
            if (request.startedAt < before.endedAt)
              return `hop ${hopOf(request)?.hop ?? '?'} arrived while hop ${hopOf(before)?.hop ?? '?'} was still unanswered`;
          }
          return undefined;
        },
        'no two hops in flight at once',
      ),
  },
  {
    id: 'client.document-fresh',
    title:
      "Sends on each hop the document with the previous hop's outputs applied, in order, with the server's uuids, as given.",
    spec: {
      section: 'request',
      must: "The next request's `context` MUST show the document as it really is (the server's uuids, spec §2; in order, spec §6).",
    },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const hops = hopsOf(recording);
          for (let index = 1; index < hops.length; index += 1) {
            const hop = hopOf(hops[index]!);
            const expected = hop && recording.expectedAfter.get(hop.hop - 1);
            if (!hop || !expected) continue;
            if (
              !isDeepStrictEqual(withoutDerived(hop.context.current_layout), withoutDerived(expected.document.layout))
            )
              return `hop ${hop.hop}'s layout is not hop ${hop.hop - 1}'s with its outputs applied`;
            if (!isDeepStrictEqual(hop.context.page ?? {}, expected.document.page))
              return `hop ${hop.hop}'s page values are not hop ${hop.hop - 1}'s with its outputs applied`;
          }
          return undefined;
        },
        "each hop's document is the one before with its outputs applied",
      ),
  },
  {
    id: 'client.apply-results',
    title:
      'Reports on the next hop one apply result per output, in order: applied, or rejected when impossible or stale.',
    spec: {
      section: 'impossibleOutputs',
      must: 'Impossible operations a host MUST reject; when a `replaces` value differs, the host MUST NOT apply the output (spec §16.2).',
    },
    judge: (recordings) =>
      overScenarios(recordings, reportsDiffer, 'every output reported, impossible and stale ones rejected', [
        'build',
        'refusals',
        'streamed',
        'attachment',
        'question-answered',
        'question-dismissed',
        'plan-revised-then-approved',
        'screenshot-sent',
        'screenshot-unavailable',
        'approval-partly-approved',
        'approval-rejected',
      ]),
  },
  {
    id: 'client.remove-move',
    title:
      'Declares remove_components and move_components on hop 1; applies the possible ones, rejects the impossible and stale ones.',
    spec: {
      section: 'impossibleOutputs',
      must: 'A host MUST reject, besides the impossible operations of spec §11: a removal or move of a uuid that is not in the layout, a move into the moved component itself or its slots, a `reference_uuid` that is being moved, and a removal or move whose `replaces` no longer matches the document.',
    },
    needs: partNeeds('remove-move'),
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const declared = recording.declaredOutputs ?? [];
          const missing = ['remove_components', 'move_components'].filter((type) => !declared.includes(type));
          if (missing.length > 0)
            return `hop 1 declared no ${missing.join(' or ')} (capabilities.outputs), so no server may send them (spec §5.1)`;
          return reportsDiffer(recording);
        },
        'two moves and removals applied, five refused: into itself, next to itself, not on the page, stale',
        ['remove-move'],
      ),
  },
  {
    id: 'client.derived-props',
    title:
      "Skips the props a node lists in `derived` when it compares a removal's `replaces`: the removal applies whatever anchor either side holds.",
    spec: {
      section: 'derivedProps',
      must: 'A host that compares a component with the node in a `replaces` MUST skip every prop listed in `derived` on either node.',
    },
    needs: DERIVED_IN_REMOVAL,
    judge: (recordings) =>
      overScenarios(recordings, reportsDiffer, 'the heading removed although its derived anchor differed', [
        'derived-props',
      ]),
  },
  {
    id: 'client.content-type',
    title: 'Reads an answer by its Content-Type: JSON to a request that asked for a stream, and NDJSON lines.',
    spec: { section: 'stream', must: "A client MUST tell the two apart by the answer's `Content-Type`." },
    needs: partNeeds('streaming'),
    judge: (recordings) => {
      const asked = [...recordings.values()].filter((recording) => hopsOf(recording).some(askedForStream));
      if (asked.length === 0) return skip('the client never asked for a stream: it reads JSON only');
      return overScenarios(
        recordings,
        (recording) => {
          // Hop numbers, not requests: a client that sends hop 1 again and again has not gone on.
          const reached = Math.max(0, ...hopsOf(recording).map((request) => hopOf(request)?.hop ?? 0));
          if (reached < 3) return `the turn stopped at hop ${reached}; the kit answered 3`;
          return undefined;
        },
        'the turn went on through JSON and NDJSON answers alike',
        ['build', 'streamed'],
      );
    },
  },
  {
    id: 'client.usage-optional',
    title: 'Runs a turn whose responses carry no usage to its answer.',
    spec: { section: 'usage', must: 'A client MUST NOT require it.' },
    needs: { since: '1.4', what: 'usage (spec §6.2, revision 1.4)' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const hops = hopsOf(recording);
          return hops.some((request) => hopOf(request)?.hop === 3) ? undefined : 'the turn did not reach its answer';
        },
        'the answer reached without usage',
        ['build'],
      ),
  },
  {
    id: 'client.repeat-after-loss',
    title: 'After a lost response or a cut stream, sends the same hop again, unchanged, or stops; never the next one.',
    spec: {
      section: 'replay',
      must: 'A client MAY then send the **same** hop again; it MUST NOT skip ahead to hop + 1.',
    },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const found = afterFault(recording);
          if (!found) return 'the client never reached the hop the kit loses (hop 2)';
          const next = found.later[0];
          if (!next) return undefined;
          const first = hopOf(found.faulted);
          const again = hopOf(next);
          if (!first || !again) return undefined;
          if (again.hop !== first.hop) return `hop ${again.hop} sent after hop ${first.hop}'s response was lost`;
          if (
            !isDeepStrictEqual(again.context, first.context) ||
            !isDeepStrictEqual(again.apply_results, first.apply_results)
          )
            return `hop ${first.hop} sent again with another context or other apply results`;
          return undefined;
        },
        'the lost hop sent again unchanged',
        ['lost-response', 'cut-stream'],
      ),
  },
  {
    id: 'client.retry-after',
    title: 'Sends a hop refused with 409 hop_in_progress or 503 and Retry-After again no sooner than it says.',
    spec: { section: 'concurrent', must: 'It sends the hop again after `Retry-After`.' },
    judge: (recordings) =>
      overScenarios(
        recordings,
        (recording) => {
          const found = afterFault(recording);
          if (!found) return 'the client never reached the hop the kit refuses (hop 2)';
          const retry = found.later[0];
          if (!retry) return undefined;
          const waited = retry.startedAt - found.faulted.endedAt;
          // Retry-After: 1; the client's timer starts once it has read the answer, after the kit sent it.
          if (waited < 1000)
            return `sent again ${Math.round(waited)} ms after the ${found.faulted.status}, before Retry-After: 1`;
          return undefined;
        },
        'the retry waited for Retry-After',
        ['busy', 'unavailable'],
      ),
  },
  {
    id: 'client.stops-on-410',
    title: 'Stops the turn on 410 turn_not_found: no hop of it after.',
    spec: { section: 'unknownTurns', must: 'The client MUST stop the turn.' },
    judge: (recordings) => noHopAfter('gone', recordings),
  },
  {
    id: 'client.no-retry-after-failure',
    title: 'Sends nothing more of a turn after 502 provider_error.',
    spec: { section: 'replay', must: 'It MUST NOT retry after `provider_error` or `internal_error`.' },
    judge: (recordings) => noHopAfter('provider-error', recordings),
  },
  {
    id: 'client.unknown-code',
    title: 'Acts on the HTTP status of an error code it does not know: a 400 ends the turn.',
    spec: {
      section: 'errors',
      must: 'A client that meets a code it does not know MUST act on the HTTP status class.',
    },
    judge: (recordings) => noHopAfter('unknown-code', recordings),
  },
  {
    id: 'client.branches-on-code',
    title:
      'Never takes 403 origin_not_allowed for a stale token (no hop after it), and meets 403 csrf_invalid with a new token and the same hop once more, or with no hop.',
    spec: { section: 'errors', must: 'Clients MUST branch on `error.code` (and the HTTP status), never on `message`.' },
    needs: TWO_403_CODES,
    judge: (recordings) => {
      const origin = noHopAfter('origin-refused', recordings);
      const csrf = retriedWithNewToken(recordings.get('csrf-refused'));
      // A client that ends the turn on every 403 breaks no rule (the retry after csrf_invalid is a SHOULD), but
      // shows no branch on the code either: the line says so.
      if (csrf.status === 'pass' && /turn ended/.test(csrf.why) && origin.status === 'pass')
        return pass(`${origin.why}; ${csrf.why}: the two codes were not told apart, nor needed to be`);
      return combineVerdicts([origin, csrf]);
    },
  },
  {
    id: 'client.stop',
    title: 'When the person stops: the hop in flight aborted, DELETE /api/hop/{request_id} sent, no hop after.',
    spec: {
      section: 'turn',
      must: 'When the user stops the turn, abort the request in flight and send DELETE (step 7).',
    },
    judge: (recordings) => {
      const recording = recordings.get('stop');
      if (!recording) return skip('the stop scenario did not run');
      if (recording.stopAskedAt === undefined) return fail('stop: the client never reached the hop the kit holds');
      const held = hopsOf(recording).find((request) => request.fault === 'hold');
      const turn = held && hopOf(held)?.request_id;
      const cancel = recording.requests.find(
        (request) => request.method === 'DELETE' && request.path === `/api/hop/${encodeURIComponent(turn ?? '')}`,
      );
      if (!cancel) return fail(`stop: no DELETE /api/hop/${turn} after the stop`);
      const after = hopsOf(recording).filter((request) => request.startedAt > recording.stopAskedAt!);
      if (after.length > 0) {
        const which = after.map(
          (request) =>
            `hop ${hopOf(request)?.hop ?? '?'} at +${Math.round(request.startedAt - recording.stopAskedAt!)} ms`,
        );
        return fail(`stop: ${after.length} hop request(s) after the stop (${which.join(', ')})`);
      }
      return pass('stop: the cancel sent, no hop after');
    },
  },
  ...WRITTEN_CHECKS,
  ...WAIT_CHECKS,
];
