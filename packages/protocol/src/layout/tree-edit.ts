import type { ComponentNode, Layout } from '../wire/layout.js';
import { findComponentPath, findComponentPaths, type LayoutPath } from './layout-tree.js';

/**
 * Path copying, the reducer's way of changing a layout: the objects on the path to a change are fresh copies, every
 * other subtree is shared with the input, and the input is never written to. (An immer draft pays a proxy trap for
 * every item it shifts or walks: at 10,000 components that was most of each apply, bench/README.md.)
 */

/** A copy of `root` with the value at `path` replaced, sharing everything off the path. */
export function replaceAt(root: unknown, path: LayoutPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...LayoutPath];
  const container = root as Record<string | number, unknown>;
  const copy = (Array.isArray(container) ? [...container] : { ...container }) as Record<string | number, unknown>;
  copy[key] = replaceAt(container[key], rest, value);
  return copy;
}

/** The value at `path` under `root`. */
export function valueAt<T>(root: unknown, path: LayoutPath): T {
  return path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], root) as T;
}

/** Where a component sits: its node, the path to it, the list holding it, its index there and that list's target. */
export interface Located {
  node: ComponentNode;
  path: LayoutPath;
  /** The path of the list that holds the node (`path` without its index). */
  listPath: LayoutPath;
  index: number;
  /** The list as a placement target: a region id, or `<parent_uuid>/<slot>` (spec §10). */
  target: string;
}

/** The component `uuid` and where it sits, or undefined when the layout has none. */
export function locate(layout: Layout, uuid: string): Located | undefined {
  const found = findComponentPath(layout, uuid);
  if (!found) return undefined;
  const listPath = found.path.slice(0, -1);
  const index = found.path.at(-1) as number;
  return { node: found.node, path: found.path, listPath, index, target: targetOfList(layout, listPath) };
}

/** {@link locate} for many uuids in one walk of the layout (see `findComponentPaths`); uuids not on it are absent. */
export function locateAll(layout: Layout, uuids: Iterable<string>): Map<string, Located> {
  const located = new Map<string, Located>();
  for (const [uuid, found] of findComponentPaths(layout, new Set(uuids))) {
    const listPath = found.path.slice(0, -1);
    const index = found.path.at(-1) as number;
    located.set(uuid, { node: found.node, path: found.path, listPath, index, target: targetOfList(layout, listPath) });
  }
  return located;
}

/** The placement target naming the list at `listPath`: `['regions', r, 'components']` is `r`, a slot `parent/slot`. */
function targetOfList(layout: Layout, listPath: LayoutPath): string {
  if (listPath.length === 3 && listPath[0] === 'regions') return String(listPath[1]);
  const parent = valueAt<ComponentNode>(layout, listPath.slice(0, -2));
  return `${parent.uuid}/${String(listPath.at(-1))}`;
}

/** The layout with the list at `listPath` replaced by `list`. */
export function withList(layout: Layout, listPath: LayoutPath, list: ComponentNode[]): Layout {
  return replaceAt(layout, listPath, list) as Layout;
}

/** Every uuid of `root`'s subtree, `root` first. */
export function subtreeUuids(root: ComponentNode, into: string[] = []): string[] {
  into.push(root.uuid);
  for (const children of Object.values(root.slots ?? {})) for (const child of children) subtreeUuids(child, into);
  return into;
}
