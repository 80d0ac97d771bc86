import { TurnStatusResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import { drivePromptTurn } from '../drive-turn.js';
import { describeAnswer, errorCodeOf, type Exchange } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { firstHopRefused, multiHopScenario, secondSessionTurn } from './turn-probes.js';

const gone =
  'Anything else (never started, expired, cancelled, failed, started in another session) gets 410 turn_not_found.';

/** The turn status endpoint (revision 1.2, spec §8.6): every state, read-only, scoped to the session. */
export const statusChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'status.unknown-410',
    level: 1,
    title: 'The status of a turn the server never saw gets 410 turn_not_found.',
    spec: { section: 'turnStatus', must: gone },
    async run(context) {
      return expect410(await context.client.status(newRequestId('status-unknown')));
    },
  }),
  defineCheck({
    id: 'status.invalid-id-400',
    level: 1,
    title: 'The status of a request_id of 129 characters gets 400 invalid_request.',
    spec: { section: 'turnStatus', must: 'An invalid request_id in the path gets 400 invalid_request.' },
    async run(context) {
      const sent = await context.client.status('a'.repeat(129));
      if (sent.status === 400 && errorCodeOf(sent.body) === 'invalid_request')
        return pass(`answered ${describeAnswer(sent)}`);
      return fail(`expected 400 invalid_request, got ${describeAnswer(sent)}`);
    },
  }),
  defineCheck({
    id: 'status.finished',
    level: 1,
    title: 'Right after a turn ended, its status is finished at its last hop, with the final response as it was sent.',
    spec: {
      section: 'turnStatus',
      must: 'A finished turn whose final response is kept: state "finished", hop its last hop, response the final response exactly as it was sent.',
    },
    async run(context) {
      const turn = await drivePromptTurn(context.client, context.prompt);
      const last = turn.hops.at(-1);
      if (turn.problem || !last?.response || last.response.should_continue)
        return fail(`the turn for the prompt did not end: ${turn.problem ?? 'no final response'}`);
      const answer = await context.client.status(turn.requestId);
      const parsed = statusOf(answer);
      if (typeof parsed === 'string') return fail(parsed);
      if (parsed.state !== 'finished') return fail(`the ended turn's status is ${parsed.state}, expected finished`);
      if (parsed.hop !== last.hop) return fail(`the status names hop ${parsed.hop}, the turn ended at hop ${last.hop}`);
      const difference = jsonDifference(last.first.body, parsed.response);
      if (difference) return fail(`the status's response is not the final response as sent: ${difference}`);
      return pass(`finished at hop ${parsed.hop}, with the final response as sent`);
    },
  }),
  defineCheck({
    id: 'status.active',
    level: 2,
    title:
      'Between hops a turn is active at the latest hop answered, with its narration; asking changes nothing: the next hop is served.',
    spec: {
      section: 'turnStatus',
      must: 'An active turn: state "active", hop the latest hop answered, progress that hop\'s narration. The endpoint is read-only: it MUST NOT change the turn.',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      const id = newRequestId('status-active');
      try {
        const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
        if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
        const first = statusOf(await context.client.status(id));
        if (typeof first === 'string') return fail(first);
        const again = statusOf(await context.client.status(id));
        const problems: string[] = [];
        if (first.state !== 'active') problems.push(`after hop 1 the state is ${first.state}, expected active`);
        if (first.hop !== 1) problems.push(`after hop 1 the status names hop ${first.hop}`);
        const progress = (hop1.body as { progress?: unknown }).progress;
        if (first.state === 'active' && first.progress !== progress)
          problems.push(`progress ${JSON.stringify(first.progress)}, hop 1 sent ${JSON.stringify(progress)}`);
        if (typeof again === 'string' || jsonDifference(first, again))
          problems.push('asked twice, the status answered differently');
        const hop2 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
        if (hop2.status !== 200) problems.push(`hop 2 after two status reads answered ${describeAnswer(hop2)}`);
        const after = statusOf(await context.client.status(id));
        if (typeof after === 'string') problems.push(`after hop 2: ${after}`);
        else if (after.hop !== 2) problems.push(`after hop 2 the status names hop ${after.hop}`);
        return problems.length === 0
          ? pass(`${scenario.id}: active at hop 1 with its narration, then at hop 2 once it was served`)
          : fail(problems.join('; '));
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
  defineCheck({
    id: 'status.cancelled-410',
    level: 2,
    title: 'The status of a cancelled turn gets 410 turn_not_found.',
    spec: { section: 'turnStatus', must: gone },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      const id = newRequestId('status-cancelled');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      await context.client.cancel(id);
      return expect410(await context.client.status(id));
    },
  }),
  defineCheck({
    id: 'status.other-session-410',
    level: 2,
    title: "The status of a turn asked from another session gets 410 turn_not_found; the turn's own session sees it.",
    spec: {
      section: 'turnStatus',
      must: "Like every turn operation it is scoped to the session: another session's turn is, for this session, a turn that does not exist.",
    },
    async run(context) {
      const turn = secondSessionTurn(context, 'status-session');
      if ('skip' in turn) return skip(turn.skip);
      const { id } = turn;
      try {
        const refused = await firstHopRefused(context, turn);
        if (refused) return refused;
        const stranger = context.client.fork();
        await stranger.csrfToken(); // a session of its own: the token endpoint sets its cookie
        const theirs = await stranger.status(id);
        if (theirs.status !== 410 || errorCodeOf(theirs.body) !== 'turn_not_found')
          return fail(`another session asking for the turn got ${describeAnswer(theirs)}, expected 410 turn_not_found`);
        const own = await context.client.status(id);
        if (own.status !== 200) return fail(`the turn's own session then got ${describeAnswer(own)}`);
        return pass('the other session got 410 turn_not_found, the own session 200');
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
  defineCheck({
    id: 'status.no-session-410',
    level: 2,
    title:
      'The status of a live turn asked without a session cookie gets 410 turn_not_found and no Set-Cookie; the own session sees the turn.',
    spec: {
      section: 'turnStatus',
      must: 'A status request without a session MUST get 410 turn_not_found; the endpoint MUST NOT mint a session for it.',
    },
    async run(context) {
      const turn = secondSessionTurn(context, 'status-no-session');
      if ('skip' in turn) return skip(turn.skip);
      const { id } = turn;
      try {
        const refused = await firstHopRefused(context, turn);
        if (refused) return refused;
        // A client of its own that never fetched a token: its jar is empty, so the request carries no cookie.
        const anonymous = await context.client.fork().status(id);
        if (anonymous.status !== 410 || errorCodeOf(anonymous.body) !== 'turn_not_found')
          return fail(`asked without a session cookie: ${describeAnswer(anonymous)}, expected 410 turn_not_found`);
        if (anonymous.headers.get('set-cookie') !== null)
          return fail(
            'asked without a session cookie: 410, but the answer sets a cookie (the endpoint minted a session)',
          );
        const own = await context.client.status(id);
        if (own.status !== 200) return fail(`the turn's own session then got ${describeAnswer(own)}`);
        return pass('without a session: 410 turn_not_found and no cookie set; the own session 200');
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
];

/** The status answer as a TurnStatusResponse, or why it is not one. */
function statusOf(exchange: Exchange): TurnStatusResponse | string {
  if (exchange.status !== 200) return `the status answered ${describeAnswer(exchange)}, expected 200`;
  const parsed = TurnStatusResponse.safeParse(exchange.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `the status is not a TurnStatusResponse (${issue.path.join('.') || 'body'}: ${issue.message})`;
  }
  return parsed.data;
}

function expect410(sent: Exchange): CheckVerdict {
  if (sent.status === 410 && errorCodeOf(sent.body) === 'turn_not_found')
    return pass(`answered ${describeAnswer(sent)}`);
  return fail(`expected 410 turn_not_found, got ${describeAnswer(sent)}`);
}
