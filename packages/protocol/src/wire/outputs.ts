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
  })
  .meta({ id: 'SetPageValueOutput', description: 'Set one page field such as the title.' });
export type SetPageValueOutput = z.infer<typeof SetPageValueOutput>;

/** A structured tool output the browser applies to its store, discriminated by `type` (spec §11). */
export const ToolOutput = z
  .discriminatedUnion('type', [PlaceComponentsOutput, EditComponentsOutput, SetPageValueOutput])
  .meta({ id: 'ToolOutput' });
export type ToolOutput = z.infer<typeof ToolOutput>;

/** The `type` of every output a v1 host must understand. */
export const TOOL_OUTPUT_TYPES = ['place_components', 'edit_components', 'set_page_value'] as const;
export type ToolOutputType = ToolOutput['type'];

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

/** A value the person changed while the agent worked: the output that would replace it was not applied. */
export const Conflict = z.union([PropConflict, PageValueConflict]).meta({ id: 'Conflict' });
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
