import * as z from 'zod/mini';
import { ComponentId, ComponentUuid, SlotName, TARGET_PATTERN } from './ids.js';
import { JsonObject, SafeKey, JsonValue } from './json.js';
import { refineBy } from './refinements.js';
import { withMeta } from './meta.js';
import { MAX_DERIVED_PROPS } from './constants.js';

export { parseTarget } from './constants.js';

/** A component's resolved prop values, by prop name. */
export const Props = withMeta(z.record(SafeKey, JsonValue), { id: 'Props' });
export type Props = z.infer<typeof Props>;

/** The props of a node its host computes from others (spec §10.1): never set by the agent, never a conflict. */
export const DerivedProps = withMeta(
  z
    .array(
      z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(200),
          refineBy('isSafeKey', [], { message: 'this key is not allowed (prototype pollution guard)' }),
        ),
    )
    .check(z.maxLength(MAX_DERIVED_PROPS)),
  {
    id: 'DerivedProps',
    description: 'The props of this node its host computes from others (spec §10.1): the agent never sets them.',
  },
);

/** One component instance in the layout tree (spec §10). A node lists every slot it has; an empty slot is `[]`. */
export const ComponentNode = withMeta(
  z.object({
    uuid: ComponentUuid,
    component: ComponentId,
    props: Props,
    // The getter's return type is written out so the published declarations keep the recursion: inferred, tsc emits
    // the nested node as `z.ZodMiniObject</*elided*/ any>` and a host's slot children lose their type. The annotation
    // names zod types only, so `ComponentNode` stays `z.infer` of this schema (test/component-node-types.test.ts).
    get slots(): z.ZodMiniOptional<z.ZodMiniRecord<typeof SlotName, z.ZodMiniArray<typeof ComponentNode>>> {
      return z.optional(z.record(SlotName, z.array(ComponentNode)));
    },
    derived: z.optional(DerivedProps),
  }),
  { id: 'ComponentNode', description: 'One component instance; its slots hold child components.' },
);
export type ComponentNode = z.infer<typeof ComponentNode>;

/** One region of the page: an ordered list of top-level components. */
export const Region = withMeta(z.object({ components: z.array(ComponentNode) }), { id: 'Region' });
export type Region = z.infer<typeof Region>;

/** The page's component tree by region id (spec §10). */
export const Layout = withMeta(z.object({ regions: z.record(SlotName, Region) }), {
  id: 'Layout',
  description: 'The page layout: ordered component trees by region id.',
});
export type Layout = z.infer<typeof Layout>;

/** Page-level fields (title, description, …) by field name. */
export const PageValues = withMeta(JsonObject, {
  id: 'PageValues',
  description: 'Page fields such as title and description.',
});
export type PageValues = z.infer<typeof PageValues>;

/**
 * Where components go: a region id (`content`) or `<parent_uuid>/<slot_name>`.
 * Parsed by {@link parseTarget}.
 */
export const PlacementTarget = withMeta(
  z.string().check(z.regex(TARGET_PATTERN, 'a target is a region id ("content") or "<parent_uuid>/<slot_name>"')),
  { id: 'PlacementTarget' },
);
export type PlacementTarget = z.infer<typeof PlacementTarget>;

/** `inside` appends to the target; `above`/`below` insert next to `reference_uuid` within the target. */
export const Placement = withMeta(z.enum(['above', 'below', 'inside']), { id: 'Placement' });
export type Placement = z.infer<typeof Placement>;
