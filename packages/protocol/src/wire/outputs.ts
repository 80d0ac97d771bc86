import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { CallId, ComponentUuid } from './ids.js';
import { JsonValue, SafeKey } from './json.js';
import { ComponentNode, Placement, PlacementTarget, Props } from './layout.js';
import { boundedText } from './text.js';

export { REQUIRED_OUTPUT_TYPES, TOOL_OUTPUT_TYPES } from './constants.js';

/** One placement of a `place_components` output, with server-assigned uuids (spec §11). */
export const PlaceOperation = withMeta(
  z.object({
    target: PlacementTarget,
    placement: Placement,
    reference_uuid: z.optional(ComponentUuid),
    components: z.array(ComponentNode).check(z.minLength(1)),
  }),
  { id: 'PlaceOperation' },
);
export type PlaceOperation = z.infer<typeof PlaceOperation>;

/** Place new components; apply the operations in order. */
export const PlaceComponentsOutput = withMeta(
  z.object({
    type: z.literal('place_components'),
    call_id: CallId,
    operations: z.array(PlaceOperation).check(z.minLength(1)),
  }),
  { id: 'PlaceComponentsOutput', description: 'Place new components (uuids already assigned by the server).' },
);
export type PlaceComponentsOutput = z.infer<typeof PlaceComponentsOutput>;

/** Change props of existing components: `uuid → {prop: value}`, only the changed props. */
export const EditComponentsOutput = withMeta(
  z.object({
    type: z.literal('edit_components'),
    call_id: CallId,
    component_updates: z.record(ComponentUuid, Props),
    /**
     * `uuid → {prop: value}`: what each prop of `component_updates` held when the tool ran (`null`: not set). A host
     * refuses the edit when the value it holds now differs (spec §16.2). Absent from revision 1.0 servers.
     */
    replaces: z.optional(z.record(ComponentUuid, Props)),
    /**
     * `uuid → [prop, …]`: props to delete after the updates (revision 1.2, spec §17.1). Only inverse outputs carry it,
     * to take back an edit that set a prop that was not set; each such prop is also in `component_updates` as `null`,
     * so a host that does not know `unset` sets it to `null`, which spec §16.2 treats as not set.
     */
    unset: z.optional(z.record(ComponentUuid, z.array(SafeKey).check(z.minLength(1)))),
  }),
  { id: 'EditComponentsOutput', description: 'Set props of existing components; other props stay.' },
);
export type EditComponentsOutput = z.infer<typeof EditComponentsOutput>;

/** Set one page-level field (title, description, …). */
export const SetPageValueOutput = withMeta(
  z.object({
    type: z.literal('set_page_value'),
    call_id: CallId,
    field: z.pipe(SafeKey, boundedText(100).check(z.minLength(1))),
    value: JsonValue,
    /** The field's value when the tool ran (`null`: not set); a host refuses the output when it differs now (spec §16.2). */
    replaces: z.optional(JsonValue),
    /**
     * Delete the field instead of setting it (revision 1.2, spec §17.1): only inverse outputs carry it, with `value`
     * `null`, so a host that does not know it sets the field to `null`, which spec §16.2 treats as not set.
     */
    unset: z.optional(z.literal(true)),
  }),
  { id: 'SetPageValueOutput', description: 'Set one page field such as the title.' },
);
export type SetPageValueOutput = z.infer<typeof SetPageValueOutput>;

/**
 * Remove components, each with its slot children (revision 1.2: only for a client that declared it, spec §11.4).
 * Applied in order; every uuid must be on the page when its turn comes.
 */
export const RemoveComponentsOutput = withMeta(
  z.object({
    type: z.literal('remove_components'),
    call_id: CallId,
    uuids: z.array(ComponentUuid).check(z.minLength(1)),
    /**
     * `uuid → node`: each removed component as the server saw it, props and slot children whole. A host refuses the
     * removal when the component it holds now differs (the person changed it meanwhile, spec §16.2).
     */
    replaces: z.optional(z.record(ComponentUuid, ComponentNode)),
  }),
  { id: 'RemoveComponentsOutput', description: 'Remove components with their slot children.' },
);
export type RemoveComponentsOutput = z.infer<typeof RemoveComponentsOutput>;

/** One move of a `move_components` output: these components, in this order, go to the target (spec §11.5). */
export const MoveOperation = withMeta(
  z.object({
    uuids: z.array(ComponentUuid).check(z.minLength(1)),
    target: PlacementTarget,
    placement: Placement,
    reference_uuid: z.optional(ComponentUuid),
  }),
  { id: 'MoveOperation' },
);
export type MoveOperation = z.infer<typeof MoveOperation>;

/**
 * Move components elsewhere on the page, keeping their uuids, props and slot children (revision 1.2: only for a
 * client that declared it, spec §11.5). Apply the operations in order.
 */
export const MoveComponentsOutput = withMeta(
  z.object({
    type: z.literal('move_components'),
    call_id: CallId,
    operations: z.array(MoveOperation).check(z.minLength(1)),
    /**
     * `uuid → target`: where each moved component was when the tool ran. A host refuses the move when a component
     * is somewhere else now (the person moved it meanwhile, spec §16.2).
     */
    replaces: z.optional(z.record(ComponentUuid, PlacementTarget)),
  }),
  { id: 'MoveComponentsOutput', description: 'Move components to another place; they keep their uuids.' },
);
export type MoveComponentsOutput = z.infer<typeof MoveComponentsOutput>;

/** A structured tool output the browser applies to its store, discriminated by `type` (spec §11). */
export const ToolOutput = withMeta(
  z.discriminatedUnion('type', [
    PlaceComponentsOutput,
    EditComponentsOutput,
    SetPageValueOutput,
    RemoveComponentsOutput,
    MoveComponentsOutput,
  ]),
  { id: 'ToolOutput' },
);
export type ToolOutput = z.infer<typeof ToolOutput>;
export type ToolOutputType = ToolOutput['type'];

/** A prop that no longer holds what an `edit_components` output expected to replace (spec §16.2). */
export const PropConflict = withMeta(
  z.object({ uuid: ComponentUuid, prop: SafeKey, expected: JsonValue, actual: JsonValue }),
  { id: 'PropConflict' },
);
export type PropConflict = z.infer<typeof PropConflict>;

/** A page field that no longer holds what a `set_page_value` output expected to replace (spec §16.2). */
export const PageValueConflict = withMeta(z.object({ field: SafeKey, expected: JsonValue, actual: JsonValue }), {
  id: 'PageValueConflict',
});
export type PageValueConflict = z.infer<typeof PageValueConflict>;

/**
 * A slot whose children (their uuids, in order) are not what a `remove_components` output expected: the person added,
 * removed or reordered components inside what it would remove (revision 1.2, spec §16.2).
 */
export const SlotConflict = withMeta(
  z.object({ uuid: ComponentUuid, slot: SafeKey, expected: z.array(ComponentUuid), actual: z.array(ComponentUuid) }),
  { id: 'SlotConflict' },
);
export type SlotConflict = z.infer<typeof SlotConflict>;

/**
 * A component that is not where a `move_components` output expected it: the person moved it meanwhile
 * (revision 1.2, spec §16.2). The targets are written like placement targets.
 */
export const TargetConflict = withMeta(
  z.object({ uuid: ComponentUuid, expected_target: PlacementTarget, actual_target: PlacementTarget }),
  { id: 'TargetConflict' },
);
export type TargetConflict = z.infer<typeof TargetConflict>;

/** A value the person changed while the agent worked: the output that would replace it was not applied. */
export const Conflict = withMeta(z.union([PropConflict, PageValueConflict, SlotConflict, TargetConflict]), {
  id: 'Conflict',
});
export type Conflict = z.infer<typeof Conflict>;

/** What the host did with one output of the previous response; a rejection is told to the model. */
export const ApplyResult = withMeta(
  z.object({
    call_id: CallId,
    status: z.enum(['applied', 'rejected']),
    reason: z.optional(boundedText(2000)),
    /** A `rejected` output's values that the person changed meanwhile (spec §16.2); at most 100. */
    conflicts: z.optional(z.array(Conflict).check(z.maxLength(100))),
  }),
  { id: 'ApplyResult' },
);
export type ApplyResult = z.infer<typeof ApplyResult>;
