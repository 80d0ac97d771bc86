import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, type Exchange } from '../http-client.js';
import { newRequestId, promptHop } from '../requests.js';

const must = (what: string) => ({
  section: 'csrf' as const,
  must: `POST and DELETE MUST carry the X-CSRF-Token of the same session; ${what} gets 403 csrf_invalid.`,
});

/** Level 1, CSRF (when the server has a token endpoint): every state-changing request without this session's token is refused. */
export const csrfChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'csrf.missing-header',
    level: 1,
    title: 'A hop without the X-CSRF-Token header gets 403 csrf_invalid.',
    spec: must('a missing header'),
    run: (context) =>
      withToken(context, async () => expect403(await context.client.postHop(hop1(context), { csrf: false }))),
  }),
  defineCheck({
    id: 'csrf.wrong-token',
    level: 1,
    title: 'A hop whose token is altered by one character gets 403 csrf_invalid.',
    spec: must('a wrong token'),
    run: (context) =>
      withToken(context, async ({ header, token }) => {
        const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
        return expect403(await context.client.postHop(hop1(context), { csrf: false, headers: { [header]: altered } }));
      }),
  }),
  defineCheck({
    id: 'csrf.other-session-token',
    level: 1,
    title: "A hop carrying another session's token gets 403 csrf_invalid.",
    spec: must('a token of another session'),
    run: (context) =>
      withToken(context, async ({ header }) => {
        const other = await context.client.fork().csrfToken();
        if (other === undefined) return fail('the second session got no token');
        if (other.token === (await context.client.csrfToken())?.token)
          return fail('two sessions got the same token: it is not bound to the session');
        return expect403(
          await context.client.postHop(hop1(context), { csrf: false, headers: { [header]: other.token } }),
        );
      }),
  }),
  defineCheck({
    id: 'csrf.no-session',
    level: 1,
    title: 'A hop with a token but without the session cookie gets 403 csrf_invalid.',
    spec: must('a request without a session'),
    run: (context) =>
      withToken(context, async ({ header, token }) => {
        const stranger = context.client.fork();
        return expect403(await stranger.postHop(hop1(context), { csrf: false, headers: { [header]: token } }));
      }),
  }),
  defineCheck({
    id: 'csrf.cancel-needs-token',
    level: 1,
    title: 'A cancel without the X-CSRF-Token header gets 403 csrf_invalid.',
    spec: must('a DELETE without the header'),
    run: (context) =>
      withToken(context, async () => expect403(await context.client.cancel(newRequestId('csrf'), { csrf: false }))),
  }),
];

async function withToken(
  context: CheckContext,
  check: (token: { header: string; token: string }) => Promise<CheckVerdict>,
): Promise<CheckVerdict> {
  if (context.client.options.tokenEndpoint === undefined)
    return skip('no --token-endpoint: the server is taken to run without CSRF checks');
  const token = await context.client.csrfToken();
  if (token === undefined) return fail('the token endpoint gave no token');
  return check(token);
}

function hop1(context: CheckContext) {
  return promptHop(newRequestId('csrf'), 1, context.prompt);
}

function expect403(sent: Exchange): CheckVerdict {
  if (sent.status === 403 && errorCodeOf(sent.body) === 'csrf_invalid')
    return pass(`refused with ${describeAnswer(sent)}`);
  return fail(`expected 403 csrf_invalid, got ${describeAnswer(sent)}`);
}
