// Planted bugs of revision 1.8: plans (spec §20.4).
import { PLAN_APPROVED_RESULT } from '@canvas-ai/protocol/server';
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

/** A server that offers plans to a client that declared only questions: hop 1 is run as if it had declared `plan`. */
function declarePlansForQuestionClients(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const capabilities = (body?.capabilities ?? {}) as Json;
    const waits = Array.isArray(capabilities.waits) ? (capabilities.waits as string[]) : [];
    if (body?.hop !== 1 || waits.length === 0 || waits.includes('plan')) return next(request);
    return next(withBody(request, { ...body, capabilities: { ...capabilities, waits: [...waits, 'plan'] } }));
  });
}

/** A server that takes a decision whose feedback does not fit as if it did: the feedback is fixed, not refused. */
function feedbackUnchecked(app: VariantApp): VariantApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const answer = body?.answer as Json | undefined;
    if (!body || answer?.kind !== 'plan') return next(request);
    const blank = String(answer.feedback ?? '').trim() === '';
    const fixed =
      answer.decision === 'revise' && blank
        ? { ...answer, feedback: 'Change it.' }
        : answer.decision === 'approve' && !blank
          ? { ...answer, feedback: undefined }
          : answer;
    return next(withBody(request, { ...body, answer: fixed }));
  });
}

export const PLAN_VARIANTS = {
  'plans-offered-to-question-clients': {
    bug: 'propose_plan is offered to a client that declared the wait question but not plan (a 1.7 client)',
    breaks: [must('spec §20.1', 'A server MUST NOT offer the model a tool that makes a turn wait')],
    caughtBy: 'waits.plan-undeclared-not-offered',
    build: (fixtures) => declarePlansForQuestionClients(realApp(fixtures)),
  },
  'plans-hop-without-plan': {
    bug: 'the hop that executes propose_plan answers without `waiting`, so the client never sees the plan',
    breaks: [must('spec §20.1', 'A hop that executed such a call MUST NOT call the model')],
    caughtBy: 'waits.plan-waiting-hop',
    alsoFailing: ['waits.plan-feedback-reaches-model', 'waits.plan-answer-checked', 'scenario.plan-revised-then-built'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => {
        if ((body.waiting as Json | undefined)?.kind !== 'plan') return body;
        const { waiting: _dropped, ...rest } = body;
        return rest;
      }),
  },
  'plans-feedback-dropped': {
    bug: "the person's feedback never reaches the model: every decision on a plan is told as an approval",
    breaks: [must('spec §20.4', 'The result of the call is one line')],
    caughtBy: 'waits.plan-feedback-reaches-model',
    alsoFailing: ['scenario.plan-revised-then-built', 'waits.plan-waiting-hop', 'hop-rules.progress-accumulates'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) => ({
              ...request,
              messages: request.messages.map((message) =>
                message.role === 'tool' && message.name === 'propose_plan' && message.content.startsWith('The person')
                  ? { ...message, content: PLAN_APPROVED_RESULT }
                  : message,
              ),
            }),
          }),
      }),
  },
  'plans-feedback-unchecked': {
    bug: 'a revision without feedback and an approval with feedback are taken instead of refused',
    breaks: [must('spec §20.4', 'A server MUST refuse (400 `invalid_request`, `field: "answer.feedback"`')],
    caughtBy: 'waits.plan-answer-checked',
    build: (fixtures) => feedbackUnchecked(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
