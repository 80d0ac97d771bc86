// Planted bugs at the door, one per MUST row of the matrix that had no variant of its own: methods, content types,
// sessions, multipart hops, CORS, the request's fields, versions, limits.
import { LIMITS } from '@canvas-ai/protocol';
import type { CanvasAiApp } from '../../../src/app.js';
import { errorAnswer, isHopPost, isStatusGet, jsonBody, type Json, realApp, withBody, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The name of the reference server's session cookie over plain HTTP (src/session.ts). */
const SESSION_COOKIE = 'canvas_ai_session';

/** The keys a JSON reader that builds objects by assignment loses (spec §7.1 refuses them instead). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function withoutForbiddenKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutForbiddenKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !FORBIDDEN_KEYS.has(key))
      .map(([key, child]) => [key, withoutForbiddenKeys(child)]),
  );
}

/** The multipart body's `request` part, and whether it carries attachments, or undefined for another body. */
async function multipartHop(request: Request): Promise<{ hop: Json; attachments: boolean } | undefined> {
  if (!isHopPost(request) || !(request.headers.get('content-type') ?? '').startsWith('multipart/')) return undefined;
  let form: FormData;
  try {
    form = await request.clone().formData();
  } catch {
    return undefined;
  }
  const part = form.get('request');
  if (typeof part !== 'string') return undefined;
  try {
    return { hop: JSON.parse(part) as Json, attachments: form.getAll('attachments').length > 0 };
  } catch {
    return undefined;
  }
}

/** The request as JSON with `body`, its other headers kept. */
function asJson(request: Request, body: Json): Request {
  const headers = new Headers(request.headers);
  headers.set('content-type', 'application/json');
  return withBody(new Request(request.url, { method: 'POST', headers }), body);
}

/** A response with the CORS grant of `origin` added (a CORS layer that grants whatever it is asked). */
function granted(response: Response, origin: string): Response {
  const headers = new Headers(response.headers);
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-allow-credentials', 'true');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * A session store that takes any id it is handed: a cookie value this server never set is adopted as a session of
 * its own (the wrapper stands in for the missing signature check by minting a real session behind it, once).
 */
function adoptingSessions(app: CanvasAiApp): CanvasAiApp {
  const minted = new Set<string>();
  const adopted = new Map<string, string>();
  const cookieOf = (header: string | null) =>
    header
      ?.split(';')
      .map((pair) => pair.trim())
      .find((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
      ?.slice(SESSION_COOKIE.length + 1);
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const value = cookieOf(cookie.split(';')[0] ?? '');
      if (value) minted.add(value);
    }
    return response;
  };
  return wrap(app, async (request, next) => {
    const value = cookieOf(request.headers.get('cookie'));
    if (value === undefined || minted.has(value)) return remember(await next(request));
    let real = adopted.get(value);
    if (real === undefined) {
      const token = await next(new Request(new URL('/api/token', request.url)));
      real = cookieOf(token.headers.getSetCookie()[0] ?? '');
      if (real === undefined) return next(request);
      minted.add(real);
      adopted.set(value, real);
    }
    const headers = new Headers(request.headers);
    headers.set('cookie', `${SESSION_COOKIE}=${real}`);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const response = await next(new Request(request.url, { method: request.method, headers, body }));
    // The adopted session keeps the id the client sent: no new cookie is set.
    const answer = new Headers(response.headers);
    answer.delete('set-cookie');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: answer });
  });
}

export const DOOR_ROW_VARIANTS = {
  'head-on-status-path-405': {
    bug: 'HEAD is answered as GET only on the GET-only endpoints: HEAD on /api/hop/{request_id} (GET and DELETE) gets 405',
    breaks: [must('spec §3', '`HEAD` on a `GET` endpoint')],
    caughtBy: 'door.head',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (request.method !== 'HEAD' || !new URL(request.url).pathname.startsWith('/api/hop/')) return next(request);
        const refused = errorAnswer(405, 'method_not_allowed', 'HEAD is not allowed here.');
        refused.headers.set('allow', 'GET, DELETE');
        return new Response(null, { status: 405, headers: refused.headers });
      }),
  },
  'text-plain-read-as-json': {
    bug: 'the body of a hop is read as JSON whatever its Content-Type, so a text/plain hop (a form post of another page) is served',
    breaks: [must('spec §4.1', 'A hop MUST be sent with `Content-Type: application/json`')],
    caughtBy: 'validation.content-type-is-text-plain',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (!isHopPost(request) || !(request.headers.get('content-type') ?? '').startsWith('text/plain'))
          return next(request);
        const headers = new Headers(request.headers);
        headers.set('content-type', 'application/json');
        return next(new Request(request.url, { method: 'POST', headers, body: await request.text() }));
      }),
  },
  'unsigned-session-adopted': {
    bug: 'a session cookie the server never set is taken as a session of its own (ids are not signed), so a planted cookie fixes the session',
    breaks: [must('spec §4.2', 'A session id MUST be one the server minted')],
    caughtBy: 'csrf.unknown-cookie',
    build: (fixtures) => adoptingSessions(realApp(fixtures)),
  },
  'attachments-on-later-hops-dropped': {
    bug: 'the attachments of a multipart hop after hop 1 are dropped and the hop served, instead of refused with 400 attachment_rejected',
    breaks: [must('spec §4.3', 'Later hops MUST be sent as JSON')],
    caughtBy: 'validation.multipart-attachments-on-hop-2',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const multipart = await multipartHop(request);
        if (!multipart?.attachments || multipart.hop.hop === 1) return next(request);
        // The one later hop that carries an image by right (spec §20.3) keeps it: the bug is in the refusal.
        if ((multipart.hop.answer as { kind?: unknown } | undefined)?.kind === 'screenshot') return next(request);
        return next(asJson(request, multipart.hop));
      }),
  },
  'multipart-later-hop-415': {
    bug: 'a multipart hop after hop 1 gets 415 unsupported_media_type, even without attachments, instead of being read as its JSON',
    breaks: [must('spec §4.3', 'a server MUST read it as it reads the same request sent as JSON')],
    caughtBy: 'validation.multipart-hop-2-without-attachments-is-read-like-json-here-an-unknown-turn',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const multipart = await multipartHop(request);
        if (!multipart || multipart.attachments || multipart.hop.hop === 1) return next(request);
        return errorAnswer(415, 'unsupported_media_type', 'Only hop 1 may be multipart.');
      }),
  },
  'cors-grants-any-origin-as-star': {
    bug: 'every answer carries Access-Control-Allow-Origin: * (a CORS layer set up "for development")',
    breaks: [must('spec §4.6', 'It MUST NOT grant `*`')],
    caughtBy: 'cors.unlisted-origin',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        const headers = new Headers(response.headers);
        headers.set('access-control-allow-origin', '*');
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      }),
  },
  'preflight-grants-any-origin': {
    bug: 'a preflight is granted to whatever Origin asks (the preflight handler echoes it); other answers are right',
    breaks: [must('spec §4.6', 'A preflight from an origin that is not listed')],
    caughtBy: 'cors.unlisted-origin',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const origin = request.headers.get('origin');
        if (origin === null || request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method'))
          return next(request);
        return granted(new Response(null, { status: 204 }), origin);
      }),
  },
  'error-answers-grant-any-origin': {
    bug: "the error handler adds a CORS grant for the request's Origin, whatever it is, so another site reads every refusal",
    breaks: [must('spec §4.6', 'A response to a request of an origin that is not listed')],
    caughtBy: 'cors.unlisted-origin',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const origin = request.headers.get('origin');
        const response = await next(request);
        return origin !== null && response.status >= 400 ? granted(response, origin) : response;
      }),
  },
  'current-message-is-last-user-message': {
    bug: "the current message is taken as the last message from the user, whatever follows it, instead of refusing a hop whose last message is not the user's",
    breaks: [must('spec §5', "the last one MUST be the user's current message")],
    caughtBy: 'validation.last-message-not-from-the-user',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const messages = Array.isArray(body?.messages) ? (body.messages as Json[]) : undefined;
        const last = messages?.findLastIndex((message) => message?.role === 'user') ?? -1;
        if (!body || !messages || last < 0 || last === messages.length - 1) return next(request);
        return next(withBody(request, { ...body, messages: messages.slice(0, last + 1) }));
      }),
  },
  'later-hop-messages-unread': {
    bug: 'messages on a hop after hop 1 are dropped unread (they are ignored), so a malformed one passes',
    breaks: [must('spec §5', 'a server MUST refuse a malformed `messages` on hop 2')],
    caughtBy: 'validation.messages-malformed-on-hop-2-validated-although-ignored',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        if (!body || body.hop === 1 || !('messages' in body)) return next(request);
        const { messages: _, ...rest } = body;
        return next(withBody(request, rest));
      }),
  },
  'forbidden-keys-dropped': {
    bug: 'the JSON reader builds objects by assignment, so __proto__, constructor and prototype keys are lost instead of refused',
    breaks: [must('spec §7.1', 'a request MUST NOT contain the keys `__proto__`')],
    caughtBy: 'validation.proto-key-in-context-extra-prototype-pollution',
    // The order rows that hold a forbidden key meet the same reader.
    alsoFailing: [
      'validation.constructor-key-in-component-props-prototype-pollution',
      'validation.proto-at-the-top-level-prototype-pollution',
      'validation.a-forbidden-key-and-a-wrong-type-the-key-scan-comes-before-the-fields',
      'validation.protocol-missing-and-a-forbidden-key-the-bounds-come-with-json-before-protocol',
      'validation.two-forbidden-keys-the-first-in-document-order-is-named',
    ],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (!isHopPost(request) || !(request.headers.get('content-type') ?? '').startsWith('application/json'))
          return next(request);
        const text = await request.clone().text();
        if (!/"(__proto__|constructor|prototype)"\s*:/.test(text)) return next(request);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return next(request);
        }
        return next(withBody(request, withoutForbiddenKeys(parsed) as Json));
      }),
  },
  'any-protocol-version-spoken': {
    bug: 'any canvas-ai/N request is served as canvas-ai/1 (only the name before the slash is compared)',
    breaks: [must('spec §14', 'A server MUST reject a request naming a version it does not speak')],
    caughtBy: 'validation.protocol-of-another-version',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        if (typeof body?.protocol !== 'string' || !/^canvas-ai\/\d+$/.test(body.protocol)) return next(request);
        return next(withBody(request, { ...body, protocol: 'canvas-ai/1' }));
      }),
  },
  'status-mints-a-session': {
    bug: 'a status request without a session is answered 410 and given a new session cookie, as the token endpoint would',
    breaks: [must('spec §8.6', 'The endpoint MUST NOT mint a session for it')],
    caughtBy: 'status.no-session-410',
    build: (fixtures) => {
      const app = realApp(fixtures);
      return wrap(app, async (request, next) => {
        const response = await next(request);
        if (!isStatusGet(request) || request.headers.has('cookie')) return response;
        const token = await app.fetch(new Request(new URL('/api/token', request.url)));
        const headers = new Headers(response.headers);
        for (const cookie of token.headers.getSetCookie()) headers.append('set-cookie', cookie);
        return new Response(response.body, { status: response.status, headers });
      });
    },
  },
  'busy-without-retry-after': {
    bug: 'a 409 hop_in_progress carries no Retry-After (the header of revision 1.4 is left out)',
    breaks: [must('spec §8.3', 'a 409 `hop_in_progress` MUST carry a `Retry-After` header')],
    // Copies of a later hop meet inside it (it executes parked calls); copies of a scripted hop 1 may all be served
    // one after another, and then no 409 is seen there.
    caughtBy: 'turn-rules.concurrent-later-hop',
    mayAlsoFail: ['turn-rules.concurrent-hop-409'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        if (response.status !== 409 || !response.headers.has('retry-after')) return response;
        const headers = new Headers(response.headers);
        headers.delete('retry-after');
        return new Response(response.body, { status: response.status, headers });
      }),
  },
  'messages-over-the-limit-cut': {
    bug: 'a hop with more messages than the limit is served with the latest ones kept, instead of refused before the model',
    breaks: [must('spec §13', 'A server MUST enforce these limits before calling a model')],
    caughtBy: 'limits.messages',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const messages = Array.isArray(body?.messages) ? (body.messages as Json[]) : [];
        if (!body || messages.length <= LIMITS.maxMessages) return next(request);
        return next(withBody(request, { ...body, messages: messages.slice(-LIMITS.maxMessages) }));
      }),
  },
} satisfies Record<string, BrokenVariant>;
