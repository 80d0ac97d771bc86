import type { Catalog } from '../config/catalog.js';
import { placedNodes } from '../layout/placed-uuids.js';
import type { ToolOutput } from '../wire/outputs.js';

/**
 * Scenario fixtures cannot know the uuids a server assigns, so they write `{{placed.N}}`: the uuid of the N-th
 * component placed in this turn (1-based), counting every component of every `place_components` output in the
 * order the responses list them, each node before its slot children (pre-order), a node's slots in the order of its
 * catalog component (`placedNodes`).
 */
export const PLACED_REF = /\{\{placed\.(\d+)\}\}/g;

/**
 * `{{selected}}` stands for the request's `context.selected_component`: what the user clicked before asking, so a
 * scenario can edit "this card" whatever uuid it got in an earlier turn.
 */
export const SELECTED_REF = /\{\{selected\}\}/g;

/** The component ids placed by one output, in placed-reference order (slots in catalog order when given). */
export function collectPlacedComponentIds(output: ToolOutput, catalog?: Pick<Catalog, 'components'>): string[] {
  return placedNodes([output], catalog).map((node) => node.component);
}

/**
 * Replaces every `{{placed.N}}` and `{{selected}}` in `text`; throws a readable error for a reference not placed
 * yet, or for `{{selected}}` when nothing is selected.
 */
export function resolvePlacedRefs(text: string, placedUuids: readonly string[], selected?: string | null): string {
  const withSelection = text.replace(SELECTED_REF, () => {
    if (selected === undefined || selected === null)
      throw new RangeError('{{selected}} is used but no component is selected');
    return selected;
  });
  return withSelection.replace(PLACED_REF, (_match, digits: string) => {
    const uuid = placedUuids[Number(digits) - 1];
    if (uuid === undefined) {
      throw new RangeError(
        `{{placed.${digits}}} refers to a component not placed yet (${placedUuids.length} placed so far)`,
      );
    }
    return uuid;
  });
}
