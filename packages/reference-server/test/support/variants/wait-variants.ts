// Planted bugs of revision 1.7: waiting turns and questions (spec §20).
import { DISMISSED_RESULT } from '@canvas-ai/protocol/server';
import {
  isHopPost,
  isStatusGet,
  jsonBody,
  type Json,
  type VariantApp,
  modelWrapper,
  realApp,
  rewriteHopResponses,
  withBody,
  withJson,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** A server that offers the question tool to every client: hop 1 is run as if it had declared the wait. */
function declareWaitsForEveryClient(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    if (body?.hop !== 1) return next(request);
    const capabilities = (body.capabilities ?? {}) as Json;
    if (Array.isArray(capabilities.waits)) return next(request);
    return next(withBody(request, { ...body, capabilities: { ...capabilities, waits: ['question'] } }));
  });
}

/** The request ids whose latest hop response waited, with that `waiting`, as a middleware sees them go by. */
function remembersWaits(
  app: VariantApp,
  handle: (
    request: Request,
    next: (request: Request) => Promise<Response>,
    waits: Map<string, Json>,
    body: Json | undefined,
  ) => Promise<Response>,
): VariantApp {
  const waits = new Map<string, Json>();
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const response = await handle(request, next, waits, body);
    if (body && typeof body.request_id === 'string' && response.status === 200) {
      const sent = (await response.clone().json()) as Json;
      if (sent.waiting) waits.set(body.request_id, sent.waiting as Json);
      else waits.delete(body.request_id);
    }
    return response;
  });
}

/** A server that takes a missing answer for a dismissal (of a plan: an approval) instead of refusing the hop. */
function answerOptional(app: VariantApp): VariantApp {
  return remembersWaits(app, async (request, next, waits, body) => {
    const waiting = typeof body?.request_id === 'string' ? waits.get(body.request_id) : undefined;
    if (!body || !waiting || body.answer !== undefined) return next(request);
    // A plan's "dismissal" is an approval (spec §20.4 has no dismissal): the same bug for either kind of wait.
    const taken = waiting.kind === 'plan' ? { decision: 'approve' } : { dismissed: true };
    const answer = { kind: waiting.kind, call_id: waiting.call_id, ...taken };
    return next(withBody(request, { ...body, answer }));
  });
}

/** A server that drops the `answer` of a hop whose turn waits for nothing, instead of refusing the hop. */
function strayAnswerDropped(app: VariantApp): VariantApp {
  return remembersWaits(app, async (request, next, waits, body) => {
    const waited = typeof body?.request_id === 'string' ? waits.get(body.request_id) : undefined;
    if (!body || waited || body.answer === undefined) return next(request);
    const { answer: _dropped, ...rest } = body;
    return next(withBody(request, rest));
  });
}

/** A cancel that answers for a waiting turn without dropping it: the turn goes on waiting. */
function cancelSkipsWaiting(app: VariantApp): VariantApp {
  return remembersWaits(app, async (request, next, waits) => {
    if (request.method !== 'DELETE') return next(request);
    const id = decodeURIComponent(new URL(request.url).pathname.slice('/api/hop/'.length));
    if (!waits.has(id)) return next(request);
    return Response.json({ status: true, request_id: id, cancelled: true });
  });
}

/** A status that leaves out what the turn waits for. */
function statusForgetsWaiting(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const response = await next(request);
    if (!isStatusGet(request) || response.status !== 200) return response;
    const { waiting: _dropped, ...status } = (await response.json()) as Json;
    return withJson(response, status);
  });
}

/**
 * A server that states a wait of two seconds and keeps waiting for its own fifteen minutes: every `expires_at` it
 * sends (the same one for a turn each time) is two seconds after the turn first waited.
 */
function statesShortWait(app: VariantApp): VariantApp {
  const stated = new Map<string, string>();
  const restate = (waiting: Json) => {
    const key = String(waiting.call_id);
    if (!stated.has(key)) stated.set(key, new Date(Date.now() + 2_000).toISOString());
    return { ...waiting, expires_at: stated.get(key) };
  };
  return wrap(app, async (request, next) => {
    const response = await next(request);
    if (response.status !== 200 || !(isHopPost(request) || isStatusGet(request))) return response;
    const body = (await response.clone().json()) as Json;
    if (!body.waiting) return response;
    return withJson(response, { ...body, waiting: restate(body.waiting as Json) });
  });
}

export const WAIT_VARIANTS = {
  'waits-offered-to-every-client': {
    bug: 'the question tool is offered to a client that declared no wait',
    breaks: [must('spec §20.1', 'A server MUST NOT offer the model a tool that makes a turn wait')],
    caughtBy: 'waits.undeclared-not-offered',
    build: (fixtures) => declareWaitsForEveryClient(realApp(fixtures)),
  },
  'waits-hop-without-question': {
    bug: 'the hop that executes a question answers without `waiting`, so the client never sees what to answer',
    breaks: [must('spec §20.1', 'A hop that executed such a call MUST NOT call the model')],
    caughtBy: 'waits.waiting-hop',
    alsoFailing: [
      'waits.*',
      'scenario.question-answered',
      'scenario.question-dismissed',
      'screenshots.*',
      'scenario.screenshot-page',
      'scenario.screenshot-unavailable',
      'scenario.plan-revised-then-built',
      'approvals.*',
      'scenario.approval-removal-approved',
      'scenario.approval-removal-rejected',
    ],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => {
        const { waiting: _dropped, ...rest } = body;
        return rest;
      }),
  },
  'waits-answer-dropped': {
    bug: "the person's answer never reaches the model: it is told that the question was dismissed",
    breaks: [must('spec §20.2', 'The result of the call is one line')],
    caughtBy: 'waits.answer-reaches-model',
    alsoFailing: ['scenario.question-answered', 'waits.waiting-hop', 'hop-rules.progress-accumulates'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) => ({
              ...request,
              messages: request.messages.map((message) =>
                message.role === 'tool' && message.name === 'ask_question'
                  ? { ...message, content: DISMISSED_RESULT }
                  : message,
              ),
            }),
          }),
      }),
  },
  'waits-status-forgets-question': {
    bug: 'the status of a waiting turn leaves out what it waits for, so a reloaded page cannot show the question',
    breaks: [must('spec §20.1', 'MUST carry the same `waiting`')],
    caughtBy: 'waits.status',
    build: (fixtures) => statusForgetsWaiting(realApp(fixtures)),
  },
  'waits-answer-optional': {
    bug: 'the hop after a waiting one without `answer` is taken as a dismissal instead of refused',
    breaks: [must('spec §20.1', 'a server MUST refuse with 400')],
    caughtBy: 'waits.answer-checked',
    build: (fixtures) => answerOptional(realApp(fixtures)),
  },
  'waits-stray-answer-dropped': {
    bug: 'an `answer` on a hop whose turn waits for nothing is dropped instead of refused',
    breaks: [must('spec §20.1', 'A hop of a turn that waits for nothing and carries an `answer` MUST get 400')],
    caughtBy: 'waits.stray-answer',
    build: (fixtures) => strayAnswerDropped(realApp(fixtures)),
  },
  'waits-cancel-ignored': {
    bug: 'a cancel answers cancelled: true for a waiting turn but leaves it waiting',
    breaks: [must('spec §20.1', '`DELETE /api/hop/{request_id}` MUST cancel')],
    caughtBy: 'waits.cancel',
    build: (fixtures) => cancelSkipsWaiting(realApp(fixtures)),
  },
  'waits-expiry-not-kept': {
    bug: 'a turn still takes its answer after the `expires_at` its server stated',
    breaks: [must('spec §20.1', 'a server MUST NOT run the turn on')],
    caughtBy: 'waits.expiry',
    build: (fixtures) => statesShortWait(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
