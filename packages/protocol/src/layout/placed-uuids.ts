import type { ComponentNode } from '../wire/layout.js';
import type { ToolOutput } from '../wire/outputs.js';

/**
 * The uuids placed by these outputs, in placed-reference order: every component of every `place_components` output in
 * the order the outputs list them, each node before its slot children (pre-order), slots in the node's key order.
 * A server keeps them per turn (the scripted provider's `{{placed.N}}`, spec/hop-protocol.md §15).
 */
export function collectPlacedUuids(outputs: readonly ToolOutput[]): string[] {
  const uuids: string[] = [];
  const visit = (node: ComponentNode): void => {
    uuids.push(node.uuid);
    for (const children of Object.values(node.slots ?? {})) children.forEach(visit);
  };
  for (const output of outputs) {
    if (output.type !== 'place_components') continue;
    for (const operation of output.operations) operation.components.forEach(visit);
  }
  return uuids;
}
