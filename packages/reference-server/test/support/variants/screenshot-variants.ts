// Planted bugs of revision 1.8: a look at the page (spec §20.3).
import { SCREENSHOT_UNAVAILABLE_RESULT } from '@canvas-ai/protocol/server';
import {
  isHopPost,
  jsonBody,
  type Json,
  type VariantApp,
  modelWrapper,
  realApp,
  rewriteHopResponses,
  withBody,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** A server that offers request_screenshot to every client that declares waits: `screenshot` is added to them. */
function screenshotForEveryWaitingClient(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const waits = ((body?.capabilities ?? {}) as Json).waits;
    if (body?.hop !== 1 || !Array.isArray(waits) || waits.includes('screenshot')) return next(request);
    const capabilities = { ...(body.capabilities as Json), waits: [...waits, 'screenshot'] };
    return next(withBody(request, { ...body, capabilities }));
  });
}

/** A server that takes a screenshot's answer sent without its image for a host that cannot, instead of refusing it. */
function imageOptional(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const answer = body?.answer as Json | undefined;
    if (answer?.kind !== 'screenshot' || answer.unavailable === true) return next(request);
    return next(withBody(request, { ...body, answer: { ...answer, unavailable: true } }));
  });
}

export const SCREENSHOT_VARIANTS = {
  'screenshots-offered-undeclared': {
    bug: 'request_screenshot is offered to a client that declared waits but not `screenshot`',
    breaks: [must('spec §20.1', 'A server MUST NOT offer the model a tool that makes a turn wait')],
    caughtBy: 'screenshots.undeclared-not-offered',
    build: (fixtures) => screenshotForEveryWaitingClient(realApp(fixtures)),
  },
  'screenshots-hop-without-waiting': {
    bug: 'the hop that executes request_screenshot answers without `waiting`, so the host is never asked',
    breaks: [must('spec §20.1', 'A hop that executed such a call MUST NOT call the model')],
    caughtBy: 'screenshots.waiting-hop',
    alsoFailing: ['screenshots.*', 'scenario.screenshot-page', 'scenario.screenshot-unavailable'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => {
        if ((body.waiting as Json | undefined)?.kind !== 'screenshot') return body;
        const { waiting: _dropped, ...rest } = body;
        return rest;
      }),
  },
  'screenshots-image-dropped': {
    bug: "the host's image never reaches the model: it is told that the host could not take one",
    breaks: [must('spec §20.3', 'The result of the call is one line')],
    caughtBy: 'screenshots.answer-reaches-model',
    alsoFailing: ['scenario.screenshot-page', 'screenshots.waiting-hop', 'hop-rules.answer-stripped'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) => ({
              ...request,
              messages: request.messages
                .filter((message) => !(message.role === 'user' && message.attachments.length > 0))
                .map((message) =>
                  message.role === 'tool' && message.name === 'request_screenshot'
                    ? { ...message, content: SCREENSHOT_UNAVAILABLE_RESULT }
                    : message,
                ),
            }),
          }),
      }),
  },
  'screenshots-image-optional': {
    bug: "a screenshot's answer without its image is taken for a host that cannot, instead of refused",
    breaks: [
      must('spec §20.3', 'a server MUST refuse with 400, changing nothing, an answer with `unavailable: false`'),
    ],
    caughtBy: 'screenshots.answer-checked',
    build: (fixtures) => imageOptional(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
