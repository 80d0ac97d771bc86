import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { CallId, ComponentId, ComponentUuid } from './ids.js';
import { refineBy } from './refinements.js';
import { boundedText } from './text.js';

/**
 * The kinds of wait a client may declare in `capabilities.waits` (spec §20.1): what a turn can wait for from the
 * person or the host — `question` (revision 1.7), `screenshot`, `plan` and `approval` (revision 1.8). Plain strings on
 * the wire: a kind this server does not know is ignored (spec §7.1).
 */
export const WAIT_KINDS = ['question', 'screenshot', 'plan', 'approval'] as const;
/** A kind of wait this version knows. */
export type WaitKind = (typeof WAIT_KINDS)[number];

/** How much a question may carry (spec §20.2). */
export const QUESTION_LIMITS = {
  questionChars: 500,
  minChoices: 2,
  maxChoices: 6,
  choiceChars: 200,
  answerTextChars: 2000,
} as const;

/** A question the person is asked, as the response's `waiting.question` carries it (spec §20.2). */
export const Question = withMeta(
  z.object({
    text: boundedText(QUESTION_LIMITS.questionChars).check(z.minLength(1)),
    choices: z
      .array(boundedText(QUESTION_LIMITS.choiceChars).check(z.minLength(1)))
      .check(z.minLength(QUESTION_LIMITS.minChoices), z.maxLength(QUESTION_LIMITS.maxChoices)),
    multiple: z.boolean(),
    free_text: z.boolean(),
  }),
  { id: 'Question' },
);
export type Question = z.infer<typeof Question>;

/** What the host is asked to show (spec §20.3): the region around a component, or the whole page (`null`). */
export const ScreenshotRequest = withMeta(z.object({ component_uuid: z.nullable(ComponentUuid) }), {
  id: 'ScreenshotRequest',
});
export type ScreenshotRequest = z.infer<typeof ScreenshotRequest>;

/** How much a plan may carry (spec §20.4). */
export const PLAN_LIMITS = {
  minRows: 1,
  maxRows: 20,
  titleChars: 100,
  maxComponentsPerRow: 10,
  feedbackChars: 2000,
} as const;

/** One planned row (spec §20.4): what it is, and the catalog components it is made of, its top-level one first. */
export const PlanRow = withMeta(
  z.object({
    title: boundedText(PLAN_LIMITS.titleChars).check(z.minLength(1)),
    components: z.array(ComponentId).check(z.minLength(1), z.maxLength(PLAN_LIMITS.maxComponentsPerRow)),
  }),
  { id: 'PlanRow' },
);
export type PlanRow = z.infer<typeof PlanRow>;

/** The rows an agent will place, in order, as the response's `waiting.plan` carries them (spec §20.4). */
export const Plan = withMeta(
  z.object({ rows: z.array(PlanRow).check(z.minLength(PLAN_LIMITS.minRows), z.maxLength(PLAN_LIMITS.maxRows)) }),
  { id: 'Plan' },
);
export type Plan = z.infer<typeof Plan>;

/** A component a proposed change touches, as the person is shown it: no uuid (spec §20.5). */
export const ProposedComponent = withMeta(
  z.object({
    component: z.string(),
    name: z.string(),
    text: z.optional(z.string().check(z.maxLength(200))),
    inside: z.int().check(z.minimum(0)),
  }),
  { id: 'ProposedComponent' },
);
export type ProposedComponent = z.infer<typeof ProposedComponent>;

/** One change that waits for the person's approval (spec §20.5): the call, its output's type, what it touches. */
export const ProposedChange = withMeta(
  z.object({ call_id: CallId, type: z.string(), components: z.array(ProposedComponent) }),
  { id: 'ProposedChange' },
);
export type ProposedChange = z.infer<typeof ProposedChange>;

/** When the server stops waiting (spec §20.1): an RFC 3339 date-time in UTC. */
const ExpiresAt = withMeta(
  z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, 'an RFC 3339 date-time in UTC')),
  {
    description: 'When the server stops waiting: an RFC 3339 date-time in UTC, e.g. 2026-12-04T16:00:00.000Z.',
  },
);

/**
 * What a waiting turn waits for (spec §20.1), by `kind`: in a response with `should_continue: true`, and on the
 * status of the active turn whose latest hop it came with. `expires_at` is when the server stops waiting.
 */
export const Waiting = withMeta(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('question'), call_id: CallId, expires_at: ExpiresAt, question: Question }),
    z.object({ kind: z.literal('screenshot'), call_id: CallId, expires_at: ExpiresAt, screenshot: ScreenshotRequest }),
    z.object({ kind: z.literal('plan'), call_id: CallId, expires_at: ExpiresAt, plan: Plan }),
    z.object({
      kind: z.literal('approval'),
      call_id: CallId,
      expires_at: ExpiresAt,
      approval: z.object({ changes: z.array(ProposedChange).check(z.minLength(1)) }),
    }),
  ]),
  { id: 'Waiting' },
);
export type Waiting = z.infer<typeof Waiting>;
/** A wait of one kind. */
export type WaitingOf<Kind extends WaitKind> = Extract<Waiting, { kind: Kind }>;
/** A turn that waits for the person's answer to a question (revision 1.7, spec §20.2). */
export type QuestionWaiting = WaitingOf<'question'>;
/** A turn that waits for the person's decision on a plan (revision 1.8, spec §20.4). */
export type PlanWaiting = WaitingOf<'plan'>;

/**
 * The person's answer to a question (spec §20.2), in the hop after the waiting one: the indexes of the picked choices
 * and/or a text of their own, or `dismissed`. Whether it fits the question is checked against the turn
 * (`answerProblems`).
 */
export const QuestionAnswer = withMeta(
  z.object({
    kind: z.literal('question'),
    call_id: CallId,
    dismissed: z._default(z.boolean(), false),
    choices: z._default(
      z
        .array(z.int().check(z.minimum(0), z.maximum(QUESTION_LIMITS.maxChoices - 1)))
        .check(
          z.maxLength(QUESTION_LIMITS.maxChoices),
          refineBy('allDifferent', [], { message: 'a choice is picked at most once' }),
        ),
      [],
    ),
    text: z.optional(boundedText(QUESTION_LIMITS.answerTextChars)),
  }),
  { id: 'QuestionAnswer' },
);
export type QuestionAnswer = z.infer<typeof QuestionAnswer>;

/**
 * The host's answer to a screenshot wait (spec §20.3): the image travels as the hop's one `attachments` part, or
 * `unavailable` says the host cannot supply one.
 */
export const ScreenshotAnswer = withMeta(
  z.object({
    kind: z.literal('screenshot'),
    call_id: CallId,
    unavailable: z._default(z.boolean(), false),
  }),
  { id: 'ScreenshotAnswer' },
);
export type ScreenshotAnswer = z.infer<typeof ScreenshotAnswer>;

/**
 * The person's decision on a plan (spec §20.4), in the hop after the waiting one: build it, or propose another with
 * their feedback. Cancel is no answer: the turn is cancelled. Whether it fits is checked against the turn.
 */
export const PlanAnswer = withMeta(
  z.object({
    kind: z.literal('plan'),
    call_id: CallId,
    decision: z.enum(['approve', 'revise']),
    feedback: z.optional(boundedText(PLAN_LIMITS.feedbackChars)),
  }),
  { id: 'PlanAnswer' },
);
export type PlanAnswer = z.infer<typeof PlanAnswer>;

/** The person's decision on proposed changes (spec §20.5): the `call_id`s of the approved ones; none rejects all. */
export const ApprovalAnswer = withMeta(
  z.object({
    kind: z.literal('approval'),
    call_id: CallId,
    approved: z._default(
      z
        .array(CallId)
        .check(z.maxLength(100), refineBy('allDifferent', [], { message: 'a change is approved at most once' })),
      [],
    ),
  }),
  { id: 'ApprovalAnswer' },
);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

/** The answer to what a turn waits for (spec §20.1), by `kind`: it must be the kind the turn waits for. */
export const WaitAnswer = withMeta(
  z.discriminatedUnion('kind', [QuestionAnswer, ScreenshotAnswer, PlanAnswer, ApprovalAnswer]),
  { id: 'WaitAnswer' },
);
export type WaitAnswer = z.infer<typeof WaitAnswer>;
