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
  defineCheck({
    id: 'csrf.cookie-reaches-endpoints',
    level: 1,
    title: 'The session cookie the token endpoint sets has a Path that covers the hop and cancel endpoints.',
    spec: {
      section: 'csrf',
      must: 'A server that keeps sessions in a cookie MUST set it with a `Path` that covers every endpoint (spec §3).',
    },
    run: (context) =>
      withToken(context, async () => {
        const token = context.client.exchanges.find((exchange) => exchange.kind === 'token');
        const cookies = token?.headers.getSetCookie() ?? [];
        if (cookies.length === 0) return pass('the token endpoint sets no cookie (the session comes from elsewhere)');
        const tokenPath = new URL(context.client.options.tokenEndpoint!).pathname;
        const targets = [context.client.options.endpoint, context.client.cancelUrl('conformance-x')].map(
          (url) => new URL(url).pathname,
        );
        for (const cookie of cookies) {
          const path = cookiePath(cookie, tokenPath);
          const missed = targets.find((target) => !pathMatches(path, target));
          if (missed !== undefined)
            return fail(`${cookie.split(';')[0]!.split('=')[0]} has Path ${path}, so it is not sent to ${missed}`);
        }
        return pass(`${cookies.length} cookie(s), each with a Path covering the hop and cancel endpoints`);
      }),
  }),
  defineCheck({
    id: 'csrf.unknown-cookie',
    level: 1,
    title:
      'A session cookie the server never issued counts as no session: the token endpoint sets a new one, a hop gets 403.',
    spec: {
      section: 'csrf',
      must: 'A cookie the server does not accept as one of its sessions counts as no session: `GET /api/token` sets a new session cookie and answers 200, a `POST` gets 403 `csrf_invalid`.',
    },
    run: (context) =>
      withToken(context, async ({ header }) => {
        const first = context.client.exchanges.find((exchange) => exchange.kind === 'token');
        const name = first?.headers.getSetCookie()[0]?.split('=')[0]?.trim();
        if (name === undefined) return pass('the token endpoint sets no cookie (the session comes from elsewhere)');
        const forged = `${name}=conformance-forged-session`;
        // A session of its own, so the cookie the server sets here does not replace the run's session.
        const stranger = context.client.fork();
        const token = await stranger.send(context.client.options.tokenEndpoint!, {
          method: 'GET',
          headers: { cookie: forged },
        });
        const issued = token.headers
          .getSetCookie()
          .find((cookie) => cookie.startsWith(`${name}=`) && !cookie.startsWith(forged));
        if (token.status !== 200 || issued === undefined)
          return fail(
            `GET the token endpoint with an unknown ${name} answered ${describeAnswer(token)} without a new ${name}`,
          );
        const newToken = (token.body as { token?: unknown }).token;
        const hop = await stranger.postHop(hop1(context), {
          csrf: false,
          headers: { cookie: forged, [header]: typeof newToken === 'string' ? newToken : '' },
        });
        return hop.status === 403 && errorCodeOf(hop.body) === 'csrf_invalid'
          ? pass(`a new ${name} was set, and a hop with the unknown one got 403 csrf_invalid`)
          : fail(`a hop with the unknown ${name} answered ${describeAnswer(hop)}, expected 403 csrf_invalid`);
      }),
  }),
];

/** A cookie's path (RFC 6265, section 5.2.4), or the default path of the URL that set it (section 5.1.4). */
function cookiePath(setCookie: string, requestPath: string): string {
  for (const attribute of setCookie.split(';').slice(1)) {
    const [key = '', value = ''] = attribute.split('=').map((part) => part.trim());
    if (key.toLowerCase() === 'path' && value.startsWith('/')) return value;
  }
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

/** Whether a cookie with `path` is sent to `target` (RFC 6265, section 5.1.4, path-match). */
function pathMatches(path: string, target: string): boolean {
  return target === path || (target.startsWith(path) && (path.endsWith('/') || target[path.length] === '/'));
}

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
