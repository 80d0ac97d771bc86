import * as z from 'zod';
import { ComponentId, ComponentUuid, SlotName } from '../wire/ids.js';
import { SafeKey } from '../wire/json.js';
import { type ComponentNode, DerivedProps, type Layout, Props } from '../wire/layout.js';

/** The layout as `Layout.parse` returns it, or the issues it would report (paths from the layout's root). */
export type LayoutCheck = { success: true; data: Layout } | { success: false; issues: z.core.$ZodIssue[] };

/** A node without its children: they are checked one by one after it (see {@link layoutSteps}). */
const nodeHead = (props: z.core.$ZodType) =>
  z.object({
    uuid: ComponentUuid,
    component: ComponentId,
    props,
    slots: z.record(SlotName, z.array(z.unknown())).optional(),
    derived: z.optional(DerivedProps),
  });
const NODE_HEAD = nodeHead(Props);
/** For values a byte scan already held to JSON: their keys are checked, not every value below them. */
const NODE_HEAD_VALUES_CHECKED = nodeHead(z.record(SafeKey, z.unknown()));
/**
 * For values a byte scan held to JSON and whose every key it held to {@link SafeKey}: props that are a plain object
 * pass {@link NODE_HEAD_VALUES_CHECKED} as they are, so only that is checked. The schema's walk of each key and value
 * cost about 8 KB of garbage per node of 16 props: 160 MB for a 3.6 MB request, whose collection stalled the server.
 */
const NODE_HEAD_PROPS_SCANNED = nodeHead(z.unknown());
const LAYOUT_HEAD = z.object({
  regions: z.record(SlotName, z.object({ components: z.array(z.unknown()) })),
});

/** Nodes and their props' keys checked between two yields: a few milliseconds of schema work. */
const STEP_WORK = 20_000;

/**
 * The layout checked as `Layout.safeParse` checks it, one node at a time with a yield every {@link STEP_WORK} nodes
 * and prop keys, for a layout the fast path (`isPlainLayout`) did not take: the schema's one walk over half a million
 * values would be one long step. The same result: the same nodes (unknown keys stripped) or the same issues, in
 * document order (each node's own before its children's). `valuesChecked`: every prop value is JSON a byte scan
 * passed, so only the props' keys are checked.
 */
export function* layoutSteps(value: unknown, valuesChecked: boolean): Generator<undefined, LayoutCheck, undefined> {
  const head = LAYOUT_HEAD.safeParse(value);
  if (!head.success) return { success: false, issues: head.error.issues };
  const schema = valuesChecked ? NODE_HEAD_VALUES_CHECKED : NODE_HEAD;
  const fastSchema = valuesChecked ? NODE_HEAD_PROPS_SCANNED : undefined;
  const issues: z.core.$ZodIssue[] = [];
  const walk = { work: 0 };
  const regions: Layout['regions'] = {};
  for (const [name, region] of Object.entries(head.data.regions)) {
    const components = yield* nodeSteps(
      region.components,
      ['regions', name, 'components'],
      { schema, fastSchema },
      issues,
      walk,
    );
    regions[name] = { components };
  }
  return issues.length > 0 ? { success: false, issues } : { success: true, data: { regions } };
}

/** The schema a node is checked by, and one that may vouch for it sooner (then its props are as they came). */
interface NodeSchemas {
  schema: typeof NODE_HEAD;
  fastSchema: typeof NODE_HEAD_PROPS_SCANNED | undefined;
}

function* nodeSteps(
  nodes: readonly unknown[],
  path: PropertyKey[],
  schemas: NodeSchemas,
  issues: z.core.$ZodIssue[],
  walk: { work: number },
): Generator<undefined, ComponentNode[], undefined> {
  const checked: ComponentNode[] = [];
  for (let index = 0; index < nodes.length; index += 1) {
    const node = nodes[index];
    const head = checkHead(node, schemas);
    walk.work += 1 + propsKeys(node);
    if (walk.work >= STEP_WORK) {
      walk.work = 0;
      yield;
    }
    if (!head.success) {
      for (const issue of head.error.issues) issues.push({ ...issue, path: [...path, index, ...issue.path] });
      // Its children are checked all the same: the schema reports theirs too.
      const slots = (node as { slots?: unknown } | null)?.slots;
      if (slots !== null && typeof slots === 'object' && !Array.isArray(slots)) {
        for (const [slot, children] of Object.entries(slots)) {
          if (Array.isArray(children))
            yield* nodeSteps(children, [...path, index, 'slots', slot], schemas, issues, walk);
        }
      }
      continue;
    }
    const { slots, ...own } = head.data;
    const result: ComponentNode = own as ComponentNode;
    if (slots) {
      result.slots = {};
      for (const [slot, children] of Object.entries(slots)) {
        result.slots[slot] = yield* nodeSteps(children, [...path, index, 'slots', slot], schemas, issues, walk);
      }
    }
    checked.push(result);
  }
  return checked;
}

/**
 * A node's head as `schemas.schema` checks it: by `fastSchema` when that passes it with props that are a plain object
 * (the record schema gives an equal copy of those), else by the schema itself, for its exact issues.
 */
function checkHead(node: unknown, { schema, fastSchema }: NodeSchemas) {
  if (fastSchema) {
    const head = fastSchema.safeParse(node);
    if (head.success && isPlainObject(head.data.props)) return head as ReturnType<typeof schema.safeParse>;
  }
  return schema.safeParse(node);
}

/** An object JSON.parse made: no list, no other prototype (anything else goes to the whole schema). */
function isPlainObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** How many keys a node's props have (the schema's work on it grows with them); 0 when it has none. */
function propsKeys(node: unknown): number {
  const props = (node as { props?: unknown } | null)?.props;
  return props !== null && typeof props === 'object' ? Object.keys(props).length : 0;
}
