import type { Catalog, CatalogComponent } from '../config/catalog.js';
import type { ComponentNode } from '../wire/layout.js';

/** The props its catalog component marks derived (spec §10.1), in the catalog's order; empty when none. */
export function catalogDerived(component: CatalogComponent): string[] {
  return Object.entries(component.props)
    .filter(([, definition]) => definition.derived === true)
    .map(([name]) => name);
}

/** Which props of a node are derived: the ones it lists and, with a catalog, the ones its component marks. */
export type DerivedOf = (node: ComponentNode) => readonly string[];

const NONE: readonly string[] = [];

/**
 * The derived props of a node (spec §10.1): what the node's `derived` lists, and what `catalog` marks derived for its
 * component. Without a catalog (a host), the node's own list only: placed nodes carry theirs.
 */
export function derivedPropsOf(catalog?: Catalog): DerivedOf {
  const marked = new Map<string, readonly string[]>();
  for (const component of catalog?.components ?? []) {
    const names = catalogDerived(component);
    if (names.length > 0) marked.set(component.id, names);
  }
  return (node) => {
    const listed = node.derived ?? NONE;
    const fromCatalog = marked.get(node.component) ?? NONE;
    if (fromCatalog.length === 0) return listed;
    if (listed.length === 0) return fromCatalog;
    return [...new Set([...fromCatalog, ...listed])];
  };
}
