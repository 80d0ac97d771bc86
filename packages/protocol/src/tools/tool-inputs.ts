import * as z from 'zod';
import { withMeta } from '../wire/meta.js';
import { ComponentId, ComponentUuid } from '../wire/ids.js';
import { JsonValue } from '../wire/json.js';
import { Placement, PlacementTarget } from '../wire/layout.js';
import { boundedText } from '../wire/text.js';
import { PLAN_LIMITS, QUESTION_LIMITS } from '../wire/waits.js';

/**
 * How much one call of a built-in tool may ask for (spec §12, §13.2). Each operation and each named component is
 * checked against the page, so without a bound one call's work would grow with its length times the page's size.
 */
export const TOOL_INPUT_LIMITS = {
  /** Operations of one `place_components` or `move_components` call. */
  operationsPerCall: 20,
  /** Components one `move_components` call moves, all its operations together. */
  movedPerCall: 50,
  /** Components one `edit_components` call edits. */
  editedPerCall: 100,
} as const;

/** A list of at most {@link TOOL_INPUT_LIMITS.operationsPerCall} operations, with a message that says what to do. */
const operationsMessage = `at most ${TOOL_INPUT_LIMITS.operationsPerCall} operations per call; make the others in your next call`;

/**
 * The model-facing inputs of the built-in tools (spec §12). A model sends these as the JSON arguments of a tool call;
 * `components` and `component_edits` are YAML strings because models write YAML more reliably than nested JSON.
 */
export const PlaceComponentsInput = z
  .object({
    operations: z
      .array(
        z.object({
          target: withMeta(PlacementTarget, {
            description: 'A region id such as "content", or "<parent_uuid>/<slot_name>".',
          }),
          placement: withMeta(Placement, {
            description: '"inside" an empty target, or "above"/"below" reference_uuid.',
          }),
          reference_uuid: z.optional(ComponentUuid).describe('Required with above/below: a component in the target.'),
          components: z
            .string()
            .min(1)
            .describe('A YAML list of single-key maps: `- component_id: {props: {...}, slots: {slot: [...]}}`.'),
        }),
      )
      .min(1)
      .max(TOOL_INPUT_LIMITS.operationsPerCall, operationsMessage),
  })
  .meta({ id: 'PlaceComponentsInput' });
export type PlaceComponentsInput = z.infer<typeof PlaceComponentsInput>;

/** `component_edits`: a YAML map `uuid → {prop: value}` with only the changed props. */
export const EditComponentsInput = z
  .object({ component_edits: z.string().min(1).describe('A YAML map: `<uuid>: {prop: value}`, changed props only.') })
  .meta({ id: 'EditComponentsInput' });
export type EditComponentsInput = z.infer<typeof EditComponentsInput>;

/** Set one page field. */
export const SetPageValueInput = z
  .object({ field: z.string().min(1).describe('A page field, e.g. "title".'), value: JsonValue })
  .meta({ id: 'SetPageValueInput' });
export type SetPageValueInput = z.infer<typeof SetPageValueInput>;

/** Remove components from the page, with everything inside their slots (spec §11.4). */
export const RemoveComponentsInput = z
  .object({
    uuids: z
      .array(ComponentUuid)
      .min(1)
      .max(50)
      .describe('The uuids of the components to remove; the components inside their slots go with them.'),
  })
  .meta({ id: 'RemoveComponentsInput' });
export type RemoveComponentsInput = z.infer<typeof RemoveComponentsInput>;

/** Move components already on the page; they keep their uuids, props and slot children (spec §11.5). */
export const MoveComponentsInput = z
  .object({
    operations: z
      .array(
        z.object({
          uuids: z
            .array(ComponentUuid)
            .min(1)
            .max(50)
            .describe('The components to move, in the order they should end up in.'),
          target: withMeta(PlacementTarget, {
            description: 'Where they go: a region id such as "content", or "<parent_uuid>/<slot_name>".',
          }),
          placement: withMeta(Placement, {
            description: '"inside" an empty target, or "above"/"below" reference_uuid.',
          }),
          reference_uuid: z
            .optional(ComponentUuid)
            .describe('Required with above/below: a component in the target that is not being moved.'),
        }),
      )
      .min(1)
      .max(TOOL_INPUT_LIMITS.operationsPerCall, operationsMessage),
  })
  .meta({ id: 'MoveComponentsInput' });
export type MoveComponentsInput = z.infer<typeof MoveComponentsInput>;

/** Fetch the props and slots of catalog components. */
export const GetComponentDetailsInput = z
  .object({ component_ids: z.array(ComponentId).min(1).max(50) })
  .meta({ id: 'GetComponentDetailsInput' });
export type GetComponentDetailsInput = z.infer<typeof GetComponentDetailsInput>;

/** Ask the person a question with choices; the turn waits for the answer (revision 1.7, spec §20.2). */
export const AskQuestionInput = z
  .object({
    question: withMeta(boundedText(QUESTION_LIMITS.questionChars).check(z.minLength(1)), {
      description: 'What you ask the person, in one or two plain sentences.',
    }),
    choices: z
      .array(boundedText(QUESTION_LIMITS.choiceChars).check(z.minLength(1)))
      .min(QUESTION_LIMITS.minChoices)
      .max(QUESTION_LIMITS.maxChoices)
      .refine(
        (choices) => new Set(choices.map((choice) => choice.trim())).size === choices.length,
        'no two choices may be the same',
      )
      .describe(`${QUESTION_LIMITS.minChoices} to ${QUESTION_LIMITS.maxChoices} short answers to pick from, in order.`),
    multiple: z.boolean().default(false).describe('Whether the person may pick several choices.'),
    free_text: z.boolean().default(false).describe('Whether the person may also write an answer of their own.'),
  })
  .meta({ id: 'AskQuestionInput' });
export type AskQuestionInput = z.infer<typeof AskQuestionInput>;

/** Ask the host for a screenshot of the page or of the region around a component (revision 1.8, spec §20.3). */
export const RequestScreenshotInput = z
  .object({
    component_uuid: z
      .optional(ComponentUuid)
      .describe('A component on the page: the screenshot shows the region around it. Leave it out for the whole page.'),
  })
  .meta({ id: 'RequestScreenshotInput' });
export type RequestScreenshotInput = z.infer<typeof RequestScreenshotInput>;
/**
 * The arguments of `propose_plan` (revision 1.8, spec §20.4): the rows the agent will place, in order, each with a
 * short title and its catalog components (which ones the catalog has is checked when the call executes).
 */
export const ProposePlanInput = z
  .object({
    rows: z
      .array(
        z.object({
          title: withMeta(boundedText(PLAN_LIMITS.titleChars).check(z.minLength(1)), {
            description: 'What the row is, in a few plain words ("Hero with the shop\'s name").',
          }),
          components: z
            .array(ComponentId)
            .min(1)
            .max(PLAN_LIMITS.maxComponentsPerRow)
            .describe('The catalog component ids the row is made of, its top-level component first.'),
        }),
      )
      .min(PLAN_LIMITS.minRows)
      .max(PLAN_LIMITS.maxRows)
      .describe('The rows you will place, in the order you will place them: one row per place_components call.'),
  })
  .meta({ id: 'ProposePlanInput' });
export type ProposePlanInput = z.infer<typeof ProposePlanInput>;
