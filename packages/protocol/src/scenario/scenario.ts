import * as z from 'zod';
import { AgentId, CallId, ComponentId, ComponentUuid } from '../wire/ids.js';
import { JsonValue, SafeKey } from '../wire/json.js';
import { PageValues } from '../wire/layout.js';
import { ATTACHMENT_MEDIA_TYPES, Capabilities, ChatMessage } from '../wire/hop-request.js';
import { FinishReason } from '../wire/hop-response.js';
import { ApplyResult, TOOL_OUTPUT_TYPES } from '../wire/outputs.js';
import { Plan, ProposedChange, Question, QUESTION_LIMITS, ScreenshotRequest } from '../wire/waits.js';

/**
 * A tool call exactly as a model sends it: `arguments` is the JSON text of the input (YAML strings included).
 * It may contain placed-component references, `{{placed.N}}` (see `placed-refs.ts`).
 */
export const ScenarioToolCall = z
  .object({ id: CallId, name: z.string().min(1), arguments: z.string() })
  .meta({ id: 'ScenarioToolCall' });
export type ScenarioToolCall = z.infer<typeof ScenarioToolCall>;

/** One scripted model reply: narration text and/or tool calls. No tool call means the model is finished. */
/** The longest a scripted decision may take (`delay_ms`): a kit run waits for it. */
const MAX_REPLY_DELAY_MS = 5000;

export const ScenarioReply = z
  .object({
    text: z.string().default(''),
    tool_calls: z.array(ScenarioToolCall).default([]),
    /**
     * How long this decision takes, as a real model's does: scripted mode replies no sooner (the kit cancels a turn
     * while its hop waits for it, spec/conformance.md §3).
     */
    delay_ms: z.int().min(0).max(MAX_REPLY_DELAY_MS).optional(),
  })
  .meta({ id: 'ScenarioReply' });
export type ScenarioReply = z.infer<typeof ScenarioReply>;

/**
 * An output the hop must return, matched by `type` and `call_id`; every other field given must match too.
 * Uuids are written symbolically as `{{placed.N}}`.
 */
export const ExpectedOutput = z
  .object({
    type: z.enum(TOOL_OUTPUT_TYPES),
    call_id: CallId,
    /** place_components: the component ids it places, flattened in document order (slot children included). */
    placed: z.array(ComponentId).optional(),
    /** place_components: the props of each placed component, in `placed` order, exactly (catalog defaults included). */
    placed_props: z.array(z.record(z.string(), JsonValue)).optional(),
    /** place_components: the `derived` list of each placed component, in `placed` order, exactly (`[]`: none). */
    placed_derived: z.array(z.array(z.string())).optional(),
    /** place_components and move_components: the target and placement of each operation, in order. */
    operations: z
      .array(
        z.object({
          /** move_components: the uuids the operation moves, possibly symbolic. */
          uuids: z.array(z.string()).optional(),
          target: z.string(),
          placement: z.enum(['above', 'below', 'inside']),
          reference_uuid: z.string().optional(),
        }),
      )
      .optional(),
    /** edit_components: `uuid → props`, uuids possibly symbolic. */
    component_updates: z.record(z.string(), z.record(z.string(), JsonValue)).optional(),
    /** edit_components: `uuid → props` it expects to replace (spec §16.2), uuids possibly symbolic. */
    replaces: z.union([z.record(z.string(), z.record(z.string(), JsonValue)), JsonValue]).optional(),
    /** remove_components: the uuids it removes, in order, possibly symbolic. */
    uuids: z.array(z.string()).optional(),
    /** set_page_value */
    field: z.string().optional(),
    value: z.optional(JsonValue),
  })
  .meta({ id: 'ExpectedOutput' });
export type ExpectedOutput = z.infer<typeof ExpectedOutput>;

/** Something the person does in the editor during a turn (spec §16). Uuids may be written `{{placed.N}}`. */
export const PersonEdit = z
  .discriminatedUnion('action', [
    z.object({ action: z.literal('edit'), uuid: z.string(), props: z.record(SafeKey, JsonValue) }),
    z.object({ action: z.literal('remove'), uuid: z.string() }),
    z.object({ action: z.literal('set_page_value'), field: SafeKey, value: JsonValue }),
    /** Drags the component elsewhere, as a move with one operation (spec §11.5) would. */
    z.object({
      action: z.literal('move'),
      uuid: z.string(),
      target: z.string(),
      placement: z.enum(['above', 'below', 'inside']),
      reference_uuid: z.string().optional(),
    }),
  ])
  .meta({ id: 'PersonEdit' });
export type PersonEdit = z.infer<typeof PersonEdit>;

/** A file the user attaches on hop 1 (or the host's screenshot), relative to the fixtures folder. */
export const ScenarioAttachment = z
  .object({ file: z.string().min(1), media_type: z.enum(ATTACHMENT_MEDIA_TYPES) })
  .meta({ id: 'ScenarioAttachment' });
export type ScenarioAttachment = z.infer<typeof ScenarioAttachment>;

/** What one hop of a scripted turn must answer. */
export const ScenarioHop = z
  .object({
    /** What the person changes while this hop runs: when its response arrives, before its outputs are applied. */
    person_before_outputs: z.array(PersonEdit).default([]),
    /** What the person changes between this hop and the next: after its outputs are applied. */
    person_after_outputs: z.array(PersonEdit).default([]),
    /**
     * Outputs of this hop the client's shared reducer must refuse as conflicts (spec §16.2), because the person
     * changed what they replace. Any other refusal is a mismatch.
     */
    conflicts: z.array(CallId).default([]),
    should_continue: z.boolean(),
    outputs: z.array(ExpectedOutput).default([]),
    /** The exact `progress` of this hop's response. */
    progress: z.string(),
    /** The final answer: only on the last hop. */
    message: z.string().optional(),
    finish_reason: z.optional(FinishReason),
    /** What the client reports back in the next request's `apply_results` (default: every output applied). */
    apply_results: z.array(ApplyResult).optional(),
    /**
     * What this hop's response must carry in `waiting` (spec §20.1), `expires_at` aside; a hop without it must carry
     * none.
     */
    waiting: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('question'), call_id: CallId, question: Question }),
        z.object({ kind: z.literal('screenshot'), call_id: CallId, screenshot: ScreenshotRequest }),
        z.object({ kind: z.literal('plan'), call_id: CallId, plan: Plan }),
        z.object({
          kind: z.literal('approval'),
          call_id: CallId,
          approval: z.object({ changes: z.array(ProposedChange).min(1) }),
        }),
      ])
      .optional(),
    /**
     * What the client answers in the next request's `answer` (its `kind` and `call_id` come from `waiting`): a
     * question's fields, a screenshot's `unavailable` or `image`, the fixture file sent as the hop's one
     * attachment (spec §15, §20.3), or a plan's `decision` and `feedback` (spec §20.4).
     */
    answer: z
      .object({
        dismissed: z.boolean().optional(),
        choices: z
          .array(
            z
              .int()
              .min(0)
              .max(QUESTION_LIMITS.maxChoices - 1),
          )
          .optional(),
        text: z.string().optional(),
        unavailable: z.boolean().optional(),
        image: ScenarioAttachment.optional(),
        decision: z.enum(['approve', 'revise']).optional(),
        feedback: z.string().optional(),
        /** For an approval: the `call_id`s of the changes the person approves (spec §20.5). */
        approved: z.array(CallId).optional(),
      })
      .optional(),
  })
  .meta({ id: 'ScenarioHop' });
export type ScenarioHop = z.infer<typeof ScenarioHop>;

/**
 * A scripted turn (fixtures/scenarios/*.yaml): the user's message, the model's replies in order (one per model
 * decision), and the expected response of every hop. A scripted-mode server matches a turn to its scenario by
 * agent and normalized user message (spec/conformance.md).
 */
export const Scenario = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    title: z.string().min(1),
    description: z.string().default(''),
    /** The agent picked for the message; absent → the main agent. */
    agent: z.optional(AgentId),
    /** The agent's `max_hops` that the expectations assume. */
    max_hops: z.int().min(1).optional(),
    /** What the client declares on hop 1 (spec §5.1): the output types beyond the v1 three it applies. */
    capabilities: z.optional(Capabilities),
    /** Earlier messages of the conversation (hop 1's `messages` before the user message). */
    history: z.array(ChatMessage).default([]),
    user_message: z.string().min(1),
    attachments: z.array(ScenarioAttachment).default([]),
    /** The layout fixture the page starts from, relative to the fixtures folder. */
    layout: z.string().default('layouts/empty.yaml'),
    page: z._default(PageValues, {}),
    selected_component: z._default(z.nullable(ComponentUuid), null),
    /**
     * The rules this scenario exists to exercise, each named by the conformance check that judges it
     * (`tools.one-call-at-a-time`, spec/conformance.md): that check plays the scenarios that name it.
     */
    exercises: z.array(z.string().regex(/^[a-z-]+\.[a-z0-9-]+$/)).default([]),
    replies: z.array(ScenarioReply).min(1),
    hops: z.array(ScenarioHop).min(1),
  })
  .superRefine((scenario, ctx) => {
    const last = scenario.hops.length - 1;
    scenario.hops.forEach((hop, index) => {
      if (hop.should_continue !== index < last) {
        ctx.addIssue({
          code: 'custom',
          path: ['hops', index, 'should_continue'],
          message: index < last ? 'only the last hop may end the turn' : 'the last hop must end the turn',
        });
      }
      if (hop.waiting && hop.answer && (hop.waiting.kind === 'plan') !== (hop.answer.decision !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['hops', index, 'answer'],
          message: `the answer does not fit a wait of kind ${hop.waiting.kind}`,
        });
      }
      if ((hop.answer !== undefined) !== (hop.waiting !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['hops', index, 'answer'],
          message: 'a hop that waits needs the answer the client sends, and only such a hop has one',
        });
      }
      if ((hop.message !== undefined || hop.finish_reason !== undefined) !== (index === last)) {
        ctx.addIssue({
          code: 'custom',
          path: ['hops', index],
          message: 'message and finish_reason belong to the last hop only, and the last hop needs both',
        });
      }
    });
  })
  .meta({ id: 'Scenario', description: 'A scripted turn with the expected response of every hop.' });
export type Scenario = z.infer<typeof Scenario>;
