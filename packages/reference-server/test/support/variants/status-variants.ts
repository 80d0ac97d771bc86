// Planted bugs of revision 1.2: the turn status endpoint (spec §8.6) and the outputs a client declares (spec §5.1).
import { HopError } from '@canvas-ai/protocol/server';
import type { CanvasAiApp } from '../../../src/app.js';
import { isHopPost, isStatusGet, jsonBody, type Json, realApp, withBody, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/**
 * A status endpoint keyed by request_id alone: every status read is answered as the session that started the turn
 * (its cookie, remembered from hop 1), whoever asks.
 */
function statusAcrossSessions(app: CanvasAiApp): CanvasAiApp {
  const owners = new Map<string, string>();
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    if (body?.hop === 1 && typeof body.request_id === 'string')
      owners.set(body.request_id, request.headers.get('cookie') ?? '');
    if (!isStatusGet(request)) return next(request);
    const id = decodeURIComponent(new URL(request.url).pathname.slice('/api/hop/'.length));
    const owner = owners.get(id);
    if (owner === undefined) return next(request);
    const headers = new Headers(request.headers);
    headers.set('cookie', owner);
    return next(new Request(request.url, { method: 'GET', headers }));
  });
}

/** A status endpoint that reads only active turns: a finished one is answered as gone. */
function forgetFinishedStatus(app: CanvasAiApp): CanvasAiApp {
  return wrap(app, async (request, next) => {
    const response = await next(request);
    if (!isStatusGet(request) || response.status !== 200) return response;
    const body = (await response.clone().json()) as Json;
    if (body.state !== 'finished') return response;
    return new HopError('turn_not_found', 'No such turn.', { requestId: body.request_id as string }).toResponse();
  });
}

/** A server that offers every tool to every client: hop 1 is run as if it had declared the remove and move outputs. */
function declareForEveryClient(app: CanvasAiApp): CanvasAiApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    if (body?.hop !== 1 || 'capabilities' in body) return next(request);
    return next(withBody(request, { ...body, capabilities: { outputs: ['remove_components', 'move_components'] } }));
  });
}

export const STATUS_VARIANTS = {
  'status-ignores-session': {
    bug: 'the turn status looks a turn up by request_id alone, so another session reads it',
    breaks: [must('spec §8.6', 'A server that offers it MUST answer')],
    caughtBy: 'status.other-session-410',
    // A request without a cookie is answered as the owner too.
    alsoFailing: ['status.no-session-410'],
    build: (fixtures) => statusAcrossSessions(realApp(fixtures)),
  },
  'status-forgets-finished': {
    bug: 'the turn status answers 410 for a turn that ended, though its final response is still kept for replays',
    breaks: [must('spec §8.6', 'A server that offers it MUST answer')],
    caughtBy: 'status.finished',
    build: (fixtures) => forgetFinishedStatus(realApp(fixtures)),
  },
  'capabilities-ignored': {
    bug: 'the remove and move tools are offered to every client, declared or not, so an older client gets outputs it cannot apply',
    breaks: [
      must('spec §5.1', "A server MUST NOT send an output of a type the turn's client"),
      must('spec §11', 'so a server MUST NOT send either'),
    ],
    caughtBy: 'capabilities.undeclared-not-offered',
    build: (fixtures) => declareForEveryClient(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
