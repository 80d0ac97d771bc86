// Planted bugs of the per-session turn bound (spec §8.8): a deployment without it, and a bound checked before the
// validation order and the turn rules. The kit drives a session to the bound when it is told it (--session-turns).
import { errorAnswer, isHopPost, jsonBody, realApp, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The session cookie of a request, as the wrapper tells sessions apart. */
const sessionOf = (request: Request) => request.headers.get('cookie') ?? '';

export const QUOTA_VARIANTS = {
  'no-session-turn-bound': {
    bug: 'the bound on the turns one session runs at once is off (0, no limit): one session can hold as many turns as it starts',
    breaks: [must('spec §8.8', 'a server MUST bound what one client can hold')],
    caughtBy: 'quotas.session-turns',
    build: (fixtures) => realApp(fixtures, { quotas: { session: { maxTurns: 0 } } }),
  },
  'quota-checked-first': {
    bug: 'once a session is at its bound, every request that is not a later hop gets 429 quota_exceeded before the validation order and the turn rules: a malformed hop 1 and a repeated hop 1 too',
    breaks: [must('spec §8.8', 'A server MUST check the bounds on turns and stored data for a *new* turn only')],
    caughtBy: 'quotas.session-turns',
    build: (fixtures) => {
      /** Sessions the app refused a new turn for, until they cancel one. */
      const full = new Set<string>();
      return wrap(realApp(fixtures), async (request, next) => {
        const session = sessionOf(request);
        if (request.method === 'DELETE') full.delete(session);
        if (!isHopPost(request)) return next(request);
        const body = await jsonBody(request);
        if (full.has(session) && !(typeof body?.hop === 'number' && body.hop > 1))
          return errorAnswer(429, 'quota_exceeded', 'This session runs as many turns as it may.');
        const response = await next(request);
        if (response.status === 429) full.add(session);
        return response;
      });
    },
  },
} satisfies Record<string, BrokenVariant>;
