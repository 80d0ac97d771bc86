// Planted bugs at the door: methods, content types, sessions and CSRF, attachments, the request's fields, limits.
import { LIMITS } from '@canvas-ai/protocol';
import { MemoryTurnStore } from '../../../src/store/memory.js';
import {
  errorAnswer,
  isHopPost,
  jsonBody,
  type Json,
  realApp,
  SessionBlindStore,
  withBody,
  withJson,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The top-level fields of a hop request (spec §5, §5.1); anything else is unknown. */
const KNOWN_FIELDS = new Set([
  'protocol',
  'request_id',
  'hop',
  'messages',
  'agent',
  'conversation_id',
  'context',
  'apply_results',
  'capabilities',
  'answer',
]);

export const DOOR_VARIANTS = {
  'agents-etag-ignored': {
    bug: 'GET /api/agents sends an ETag but answers 200 with the whole body to an If-None-Match naming it',
    breaks: [must('spec §3.1', 'It MUST answer a `GET` whose')],
    caughtBy: 'agents.etag',
    build: (fixtures) =>
      wrap(realApp(fixtures), (request, next) => {
        if (new URL(request.url).pathname !== '/api/agents') return next(request);
        const headers = new Headers(request.headers);
        headers.delete('if-none-match');
        return next(new Request(request, { headers }));
      }),
  },
  'malformed-traceparent-refused': {
    bug: 'a hop whose traceparent is not W3C trace context gets 400 invalid_request instead of being answered as without it',
    breaks: [must('spec §4.7', 'A server MUST NOT refuse a request for its')],
    caughtBy: 'trace.malformed-ignored',
    build: (fixtures) =>
      wrap(realApp(fixtures), (request, next) => {
        const traceparent = request.headers.get('traceparent');
        return traceparent !== null && !/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent)
          ? Promise.resolve(errorAnswer(400, 'invalid_request', 'The traceparent header is malformed.'))
          : next(request);
      }),
  },
  'known-path-404': {
    bug: 'a known path with another method gets 404 not_found instead of 405 with Allow',
    breaks: [must('spec §3', 'A 405 MUST carry')],
    caughtBy: 'door.method-not-allowed',
    // HEAD on the hop path is another method too.
    alsoFailing: ['door.head'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        return response.status === 405 ? errorAnswer(404, 'not_found', `Nothing at ${request.method}.`) : response;
      }),
  },
  'media-type-with-parameters-refused': {
    bug: 'the Content-Type header is compared whole with application/json, so a charset parameter or capitals get 415',
    breaks: [must('spec §4.1', 'a server MUST accept them as such')],
    caughtBy: 'validation.content-type-with-a-charset-parameter-parameters-are-ignored',
    alsoFailing: ['validation.content-type-in-capitals-media-types-ignore-case'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const type = request.headers.get('content-type') ?? '';
        const json = type.toLowerCase().startsWith('application/json');
        if (isHopPost(request) && json && type !== 'application/json')
          return errorAnswer(415, 'unsupported_media_type', `Not application/json: ${type}`);
        return next(request);
      }),
  },
  'turn-keys-without-session': {
    bug: 'turns are stored under their request_id alone, so another session can resume them',
    breaks: [must('spec §4.2', 'Every key the server stores a turn under')],
    caughtBy: 'turn-rules.other-session-410',
    // The status endpoint reads the same store, so another session reads the turn too.
    alsoFailing: ['status.other-session-410'],
    build: (fixtures) => realApp(fixtures, { store: new SessionBlindStore(new MemoryTurnStore()) }),
  },
  'cancel-without-csrf': {
    bug: 'DELETE /api/hop/{request_id} is not CSRF-checked (a middleware fills in the token of the caller’s session)',
    breaks: [must('spec §4.2', 'so they MUST carry the header')],
    caughtBy: 'csrf.cancel-needs-token',
    build: (fixtures) => {
      const app = realApp(fixtures);
      return wrap(app, async (request, next) => {
        if (request.method !== 'DELETE') return next(request);
        const token = await app.fetch(
          new Request(new URL('/api/token', request.url), { headers: { cookie: request.headers.get('cookie') ?? '' } }),
        );
        const headers = new Headers(request.headers);
        headers.set('x-csrf-token', ((await token.json()) as { token: string }).token);
        return next(new Request(request.url, { method: 'DELETE', headers }));
      });
    },
  },
  'cookie-for-the-token-path-only': {
    bug: 'the session cookie is set with Path=/api/token, so the browser never sends it to /api/hop',
    breaks: [must('spec §4.2', 'MUST set it with a `Path`')],
    caughtBy: 'csrf.cookie-reaches-endpoints',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        const cookies = response.headers.getSetCookie();
        if (cookies.length === 0) return response;
        const headers = new Headers(response.headers);
        headers.delete('set-cookie');
        for (const cookie of cookies) headers.append('set-cookie', cookie.replace('Path=/', 'Path=/api/token'));
        return new Response(response.body, { status: response.status, headers });
      }),
  },
  'attachment-type-from-its-declaration': {
    bug: 'an attachment is judged by its declared type: an image/* part passes whatever its bytes, any other is refused',
    breaks: [must('spec §4.3', 'The server MUST check every file by its first bytes')],
    caughtBy: 'attachments.judged-by-bytes',
    alsoFailing: ['validation.multipart-attachment-that-is-not-an-image-by-its-bytes'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (!isHopPost(request) || !(request.headers.get('content-type') ?? '').startsWith('multipart/'))
          return next(request);
        const form = await request.clone().formData();
        const rebuilt = new FormData();
        const parts: Array<[string, FormDataEntryValue]> = [];
        form.forEach((value, name) => {
          parts.push([name, value]);
        });
        for (const [name, value] of parts) {
          if (name !== 'attachments' || typeof value === 'string') {
            rebuilt.append(name, value);
            continue;
          }
          if (!value.type.startsWith('image/'))
            return errorAnswer(400, 'attachment_rejected', `${value.name} is ${value.type}`, 'attachments.0');
          // What the declared type says, made true for the real check behind it.
          const bytes = new Uint8Array(await value.arrayBuffer());
          const believed = new Uint8Array(Math.max(bytes.length, PNG.length));
          believed.set(bytes);
          believed.set(PNG);
          rebuilt.append(name, new Blob([believed], { type: value.type }), value.name);
        }
        const headers = new Headers(request.headers);
        headers.delete('content-type');
        headers.delete('content-length');
        return next(new Request(request.url, { method: 'POST', headers, body: rebuilt }));
      }),
  },
  'request-id-not-required': {
    bug: 'a hop without request_id is given a generated one instead of being refused with 400',
    breaks: [must('spec §7', 'A server MUST name these fields')],
    caughtBy: 'validation.request-id-missing',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        if (!body || 'request_id' in body) return next(request);
        return next(withBody(request, { ...body, request_id: `generated-${crypto.randomUUID()}` }));
      }),
  },
  'integer-with-fraction-refused': {
    bug: '"hop": 1.0 is refused as not an integer (a parser that keeps 1.0 a float)',
    breaks: [must('spec §5', '`"hop": 1.0` is the integer 1')],
    caughtBy: 'validation.integer-written-with-fraction',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (isHopPost(request) && /"hop":\s*\d+\.\d/.test(await request.clone().text()))
          return errorAnswer(400, 'invalid_request', 'hop: expected an integer', 'hop');
        return next(request);
      }),
  },
  'last-problem-named': {
    bug: 'a request with several problems names the last one in field, not the first',
    breaks: [must('spec §7', 'A server MUST answer with the first problem')],
    caughtBy: 'validation.two-faults-the-first-field-in-schema-order-is-named',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        if (response.status !== 400) return response;
        const body = (await response.clone().json()) as { error: { field?: string; issues?: Array<{ path: string }> } };
        const last = body.error.issues?.at(-1);
        if (!last || (body.error.issues?.length ?? 0) < 2) return response;
        return withJson(response, { ...body, error: { ...body.error, field: last.path } });
      }),
  },
  'unknown-fields-refused': {
    bug: 'a request with a top-level field the server does not know is refused (a strict schema)',
    breaks: [must('spec §7.1', 'tools reading configs) MUST:')],
    caughtBy: 'validation.unknown-fields-ignored',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const unknown = Object.keys(body ?? {}).find((key) => !KNOWN_FIELDS.has(key));
        return unknown === undefined
          ? next(request)
          : errorAnswer(400, 'invalid_request', `Unknown field ${unknown}.`, unknown);
      }),
  },
  'message-length-in-utf16-units': {
    bug: 'a message is measured in UTF-16 code units (JavaScript’s length), so 20,000 emoji count as 40,000',
    breaks: [must('spec §13', 'A server MUST count as follows')],
    caughtBy: 'limits.message-characters',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const messages = Array.isArray(body?.messages) ? (body.messages as Json[]) : [];
        const long = messages.findIndex(
          (message) => typeof message.text === 'string' && message.text.length > LIMITS.messageChars,
        );
        return long < 0
          ? next(request)
          : errorAnswer(400, 'invalid_request', 'The message is too long.', `messages.${long}.text`);
      }),
  },
  'origin-not-checked': {
    bug: 'a state change from another site’s page is let through when it carries a token (the Origin is not looked at)',
    breaks: [must('spec §4.5', 'nor one the server allows MUST be refused')],
    caughtBy: 'origin.cross-site-refused',
    // Never looking at Origin, it lets the other requests of another site reach the rest of the order too, and the
    // Origins whose port differs from the Host's.
    alsoFailing: ['origin.refused-first', 'origin.own-origin-by-port'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (!request.headers.has('origin') || request.method === 'GET' || request.method === 'OPTIONS')
          return next(request);
        const headers = new Headers(request.headers);
        headers.delete('origin');
        const body = request.body === null ? undefined : await request.arrayBuffer();
        return next(new Request(request.url, { method: request.method, headers, body }));
      }),
  },
  'cors-reflects-any-origin': {
    bug: 'every answer grants whatever Origin the request names, with credentials, so any site reads the session’s answers (preflights are answered right)',
    breaks: [must('spec §4.6', 'A response to a request of an origin that is not listed')],
    caughtBy: 'cors.unlisted-origin',
    // A CORS layer put in front the careless way: every origin is echoed back as granted.
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const origin = request.headers.get('origin');
        const grant: Record<string, string> = origin
          ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' }
          : {};
        const response = await next(request);
        const headers = new Headers(response.headers);
        for (const [name, value] of Object.entries(grant)) headers.set(name, value);
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      }),
  },
} satisfies Record<string, BrokenVariant>;
