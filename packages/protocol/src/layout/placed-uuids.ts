import type { Catalog } from '../config/catalog.js';
import type { ComponentNode } from '../wire/layout.js';
import type { ToolOutput } from '../wire/outputs.js';

/**
 * The components placed by these outputs, in placed-reference order (spec §15): every component of every
 * `place_components` output in the order the outputs list them, each node before its slot children (pre-order),
 * a node's slots in the order its catalog component lists them (JSON key order carries no meaning). Without a
 * catalog, or for a slot the catalog does not name, the node's key order is used (a server's own outputs list slots
 * in catalog order, spec §11).
 */
export function placedNodes(outputs: readonly ToolOutput[], catalog?: Pick<Catalog, 'components'>): ComponentNode[] {
  const slotNames = new Map(catalog?.components.map((component) => [component.id, Object.keys(component.slots)]));
  const nodes: ComponentNode[] = [];
  const visit = (node: ComponentNode): void => {
    nodes.push(node);
    const slots = node.slots ?? {};
    const ordered = [
      ...(slotNames.get(node.component) ?? []).filter((name) => Object.hasOwn(slots, name)),
      ...Object.keys(slots),
    ];
    for (const name of new Set(ordered)) slots[name]!.forEach(visit);
  };
  for (const output of outputs) {
    if (output.type !== 'place_components') continue;
    for (const operation of output.operations) operation.components.forEach(visit);
  }
  return nodes;
}

/**
 * The uuids placed by these outputs, in placed-reference order ({@link placedNodes}). A server keeps them per turn
 * (the scripted provider's `{{placed.N}}`, spec/hop-protocol.md §15).
 */
export function collectPlacedUuids(outputs: readonly ToolOutput[], catalog?: Pick<Catalog, 'components'>): string[] {
  return placedNodes(outputs, catalog).map((node) => node.uuid);
}
