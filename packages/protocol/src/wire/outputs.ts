import * as z from 'zod';
import { CallId, ComponentUuid } from './ids.js';
import { JsonValue, SafeKey } from './json.js';
import { ComponentNode, Placement, PlacementTarget, Props } from './layout.js';
import { boundedText } from './text.js';

/** One placement of a `place_components` output, with server-assigned uuids (spec §11). */
export const PlaceOperation = z
  .object({
    target: PlacementTarget,
    placement: Placement,
    reference_uuid: ComponentUuid.optional(),
    components: z.array(ComponentNode).min(1),
  })
  .meta({ id: 'PlaceOperation' });
export type PlaceOperation = z.infer<typeof PlaceOperation>;

/** Place new components; apply the operations in order. */
export const PlaceComponentsOutput = z
  .object({
    type: z.literal('place_components'),
    call_id: CallId,
    operations: z.array(PlaceOperation).min(1),
  })
  .meta({ id: 'PlaceComponentsOutput', description: 'Place new components (uuids already assigned by the server).' });
export type PlaceComponentsOutput = z.infer<typeof PlaceComponentsOutput>;

/** Change props of existing components: `uuid → {prop: value}`, only the changed props. */
export const EditComponentsOutput = z
  .object({
    type: z.literal('edit_components'),
    call_id: CallId,
    component_updates: z.record(ComponentUuid, Props),
    /**
     * `uuid → {prop: value}`: what each prop of `component_updates` held when the tool ran (`null`: not set). A host
     * refuses the edit when the value it holds now differs (spec §16.2). Absent from revision 1.0 servers.
     */
    replaces: z.record(ComponentUuid, Props).optional(),
    /**
     * `uuid → [prop, …]`: props to delete after the updates (revision 1.2, spec §17.1). Only inverse outputs carry it,
     * to take back an edit that set a prop that was not set; each such prop is also in `component_updates` as `null`,
     * so a host that does not know `unset` sets it to `null`, which spec §16.2 treats as not set.
     */
    unset: z.record(ComponentUuid, z.array(SafeKey).min(1)).optional(),
  })
  .meta({ id: 'EditComponentsOutput', description: 'Set props of existing components; other props stay.' });
export type EditComponentsOutput = z.infer<typeof EditComponentsOutput>;

/** Set one page-level field (title, description, …). */
export const SetPageValueOutput = z
  .object({
    type: z.literal('set_page_value'),
    call_id: CallId,
    field: SafeKey.pipe(boundedText(100).min(1)),
    value: JsonValue,
    /** The field's value when the tool ran (`null`: not set); a host refuses the output when it differs now (spec §16.2). */
    replaces: JsonValue.optional(),
    /**
     * Delete the field instead of setting it (revision 1.2, spec §17.1): only inverse outputs carry it, with `value`
     * `null`, so a host that does not know it sets the field to `null`, which spec §16.2 treats as not set.
     */
    unset: z.literal(true).optional(),
  })
  .meta({ id: 'SetPageValueOutput', description: 'Set one page field such as the title.' });
export type SetPageValueOutput = z.infer<typeof SetPageValueOutput>;

/**
 * Remove components, each with its slot children (revision 1.2: only for a client that declared it, spec §11.4).
 * Applied in order; every uuid must be on the page when its turn comes.
 */
export const RemoveComponentsOutput = z
  .object({
    type: z.literal('remove_components'),
    call_id: CallId,
    uuids: z.array(ComponentUuid).min(1),
    /**
     * `uuid → node`: each removed component as the server saw it, props and slot children whole. A host refuses the
     * removal when the component it holds now differs (the person changed it meanwhile, spec §16.2).
     */
    replaces: z.record(ComponentUuid, ComponentNode).optional(),
  })
  .meta({ id: 'RemoveComponentsOutput', description: 'Remove components with their slot children.' });
export type RemoveComponentsOutput = z.infer<typeof RemoveComponentsOutput>;

/** One move of a `move_components` output: these components, in this order, go to the target (spec §11.5). */
export const MoveOperation = z
  .object({
    uuids: z.array(ComponentUuid).min(1),
    target: PlacementTarget,
    placement: Placement,
    reference_uuid: ComponentUuid.optional(),
  })
  .meta({ id: 'MoveOperation' });
export type MoveOperation = z.infer<typeof MoveOperation>;

/**
 * Move components elsewhere on the page, keeping their uuids, props and slot children (revision 1.2: only for a
 * client that declared it, spec §11.5). Apply the operations in order.
 */
export const MoveComponentsOutput = z
  .object({
    type: z.literal('move_components'),
    call_id: CallId,
    operations: z.array(MoveOperation).min(1),
    /**
     * `uuid → target`: where each moved component was when the tool ran. A host refuses the move when a component
     * is somewhere else now (the person moved it meanwhile, spec §16.2).
     */
    replaces: z.record(ComponentUuid, PlacementTarget).optional(),
  })
  .meta({ id: 'MoveComponentsOutput', description: 'Move components to another place; they keep their uuids.' });
export type MoveComponentsOutput = z.infer<typeof MoveComponentsOutput>;

/** A structured tool output the browser applies to its store, discriminated by `type` (spec §11). */
export const ToolOutput = z
  .discriminatedUnion('type', [
    PlaceComponentsOutput,
    EditComponentsOutput,
    SetPageValueOutput,
    RemoveComponentsOutput,
    MoveComponentsOutput,
  ])
  .meta({ id: 'ToolOutput' });
export type ToolOutput = z.infer<typeof ToolOutput>;

/** The `type` of every output of the protocol (spec §11). */
export const TOOL_OUTPUT_TYPES = [
  'place_components',
  'edit_components',
  'set_page_value',
  'remove_components',
  'move_components',
] as const;
export type ToolOutputType = ToolOutput['type'];

/** The output types every version 1 host applies: a server may send them to any client (spec §11). */
export const REQUIRED_OUTPUT_TYPES = ['place_components', 'edit_components', 'set_page_value'] as const;

/**
 * The output types a server sends only to a client that declared it applies them in `capabilities.outputs`
 * (revision 1.2, spec §5.1).
 */
export const DECLARED_OUTPUT_TYPES = ['remove_components', 'move_components'] as const;
export type DeclaredOutputType = (typeof DECLARED_OUTPUT_TYPES)[number];

/** A prop that no longer holds what an `edit_components` output expected to replace (spec §16.2). */
export const PropConflict = z
  .object({ uuid: ComponentUuid, prop: SafeKey, expected: JsonValue, actual: JsonValue })
  .meta({ id: 'PropConflict' });
export type PropConflict = z.infer<typeof PropConflict>;

/** A page field that no longer holds what a `set_page_value` output expected to replace (spec §16.2). */
export const PageValueConflict = z
  .object({ field: SafeKey, expected: JsonValue, actual: JsonValue })
  .meta({ id: 'PageValueConflict' });
export type PageValueConflict = z.infer<typeof PageValueConflict>;

/**
 * A slot whose children (their uuids, in order) are not what a `remove_components` output expected: the person added,
 * removed or reordered components inside what it would remove (revision 1.2, spec §16.2).
 */
export const SlotConflict = z
  .object({ uuid: ComponentUuid, slot: SafeKey, expected: z.array(ComponentUuid), actual: z.array(ComponentUuid) })
  .meta({ id: 'SlotConflict' });
export type SlotConflict = z.infer<typeof SlotConflict>;

/**
 * A component that is not where a `move_components` output expected it: the person moved it meanwhile
 * (revision 1.2, spec §16.2). The targets are written like placement targets.
 */
export const TargetConflict = z
  .object({ uuid: ComponentUuid, expected_target: PlacementTarget, actual_target: PlacementTarget })
  .meta({ id: 'TargetConflict' });
export type TargetConflict = z.infer<typeof TargetConflict>;

/** A value the person changed while the agent worked: the output that would replace it was not applied. */
export const Conflict = z
  .union([PropConflict, PageValueConflict, SlotConflict, TargetConflict])
  .meta({ id: 'Conflict' });
export type Conflict = z.infer<typeof Conflict>;

/** What the host did with one output of the previous response; a rejection is told to the model. */
export const ApplyResult = z
  .object({
    call_id: CallId,
    status: z.enum(['applied', 'rejected']),
    reason: boundedText(2000).optional(),
    /** A `rejected` output's values that the person changed meanwhile (spec §16.2); at most 100. */
    conflicts: z.array(Conflict).max(100).optional(),
  })
  .meta({ id: 'ApplyResult' });
export type ApplyResult = z.infer<typeof ApplyResult>;
