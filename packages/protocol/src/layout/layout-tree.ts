import type { ComponentNode, Layout } from '../wire/layout.js';
import { parseTarget } from '../wire/constants.js';
import { LayoutError } from './layout-error.js';

/** Calls `visit` for every component of the layout, each node before its slot children. */
export function walkLayout(layout: Layout, visit: (node: ComponentNode, parent: ComponentNode | null) => void): void {
  const walk = (nodes: readonly ComponentNode[], parent: ComponentNode | null): void => {
    for (const node of nodes) {
      visit(node, parent);
      for (const children of Object.values(node.slots ?? {})) walk(children, node);
    }
  };
  for (const region of Object.values(layout.regions)) walk(region.components, null);
}

/**
 * Every component of the layout, each before its slot children, in {@link walkLayout}'s order: the walk for work that
 * yields between its steps (a callback cannot).
 */
export function* layoutNodes(layout: Layout): Generator<ComponentNode, void, undefined> {
  const stack: ComponentNode[] = [];
  for (const region of Object.values(layout.regions)) {
    stack.push(...[...region.components].reverse());
    while (stack.length > 0) {
      const node = stack.pop()!;
      yield node;
      const children = Object.values(node.slots ?? {}).flat();
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]!);
    }
  }
}

/** How many components the layout holds, slot children included. */
export function countComponents(layout: Layout): number {
  let count = 0;
  walkLayout(layout, () => {
    count += 1;
  });
  return count;
}

/** The first uuid that occurs twice in the layout, if any. */
export function findDuplicateUuid(layout: Layout): string | undefined {
  const seen = new Set<string>();
  let duplicate: string | undefined;
  walkLayout(layout, (node) => {
    if (duplicate === undefined && seen.has(node.uuid)) duplicate = node.uuid;
    seen.add(node.uuid);
  });
  return duplicate;
}

/** The node with this uuid, or undefined. */
export function findComponent(layout: Layout, uuid: string): ComponentNode | undefined {
  return findComponentPath(layout, uuid)?.node;
}

/**
 * Property keys from a layout's root down to a value in it: `['regions', 'content', 'components', 3, 'slots',
 * 'items', 1]`. The reducer copies the objects along one (layout/tree-edit.ts), never the whole tree.
 */
export type LayoutPath = Array<string | number>;

/** The node with this uuid and the path to it, or undefined. Stops at the first match. */
export function findComponentPath(layout: Layout, uuid: string): { node: ComponentNode; path: LayoutPath } | undefined {
  const search = (
    nodes: readonly ComponentNode[],
    path: LayoutPath,
  ): { node: ComponentNode; path: LayoutPath } | undefined => {
    for (let index = 0; index < nodes.length; index += 1) {
      const node = nodes[index]!;
      if (node.uuid === uuid) return { node, path: [...path, index] };
      if (!node.slots) continue;
      for (const [slot, children] of Object.entries(node.slots)) {
        const found = search(children, [...path, index, 'slots', slot]);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const [region, { components }] of Object.entries(layout.regions)) {
    const found = search(components, ['regions', region, 'components']);
    if (found) return found;
  }
  return undefined;
}

/**
 * The nodes with these uuids and the paths to them, found in one walk that stops once all are found: a call naming
 * many components costs one walk of the page, not one per component (spec §13.2). Uuids not on the page are absent.
 */
export function findComponentPaths(
  layout: Layout,
  uuids: ReadonlySet<string>,
): Map<string, { node: ComponentNode; path: LayoutPath }> {
  const found = new Map<string, { node: ComponentNode; path: LayoutPath }>();
  const search = (nodes: readonly ComponentNode[], path: LayoutPath): boolean => {
    for (let index = 0; index < nodes.length; index += 1) {
      const node = nodes[index]!;
      if (uuids.has(node.uuid) && !found.has(node.uuid)) {
        found.set(node.uuid, { node, path: [...path, index] });
        if (found.size === uuids.size) return true;
      }
      if (!node.slots) continue;
      for (const [slot, children] of Object.entries(node.slots)) {
        if (search(children, [...path, index, 'slots', slot])) return true;
      }
    }
    return false;
  };
  if (uuids.size === 0) return found;
  for (const [region, { components }] of Object.entries(layout.regions)) {
    if (search(components, ['regions', region, 'components'])) break;
  }
  return found;
}

/** The component list a target names and its path from the layout's root; throws a {@link LayoutError} if none. */
export function resolveTarget(
  layout: Layout,
  target: string,
  callId?: string,
): { list: ComponentNode[]; path: LayoutPath } {
  const parsed = parseTarget(target);
  if (parsed.kind === 'region') {
    const region = Object.hasOwn(layout.regions, parsed.region) ? layout.regions[parsed.region] : undefined;
    if (!region) throw new LayoutError('unknown_target', `no region "${parsed.region}" in the layout`, callId);
    return { list: region.components, path: ['regions', parsed.region, 'components'] };
  }
  const found = findComponentPath(layout, parsed.parentUuid);
  if (!found)
    throw new LayoutError('unknown_target', `no component "${parsed.parentUuid}" for target "${target}"`, callId);
  const parent = found.node;
  const slots = parent.slots ?? {};
  const list = Object.hasOwn(slots, parsed.slot) ? slots[parsed.slot] : undefined;
  if (!list) {
    const known = Object.keys(slots);
    throw new LayoutError(
      'unknown_slot',
      `component "${parsed.parentUuid}" (${parent.component}) has no slot "${parsed.slot}"` +
        (known.length ? ` (slots: ${known.join(', ')})` : ' (it has no slots)'),
      callId,
    );
  }
  return { list, path: [...found.path, 'slots', parsed.slot] };
}
