import { applyOutputs, type CanvasDocument } from '../layout/apply-outputs.js';
import { findComponent } from '../layout/layout-tree.js';
import type { ComponentNode } from '../wire/layout.js';
import { resolvePlacedRefs } from './placed-refs.js';
import type { PersonEdit } from './scenario.js';

/**
 * Plays what the person does in the editor (a scenario hop's `person`, spec §16) on the client's document, in order,
 * as their own editor would: props set, components removed with their slot children, components moved, page fields
 * set. Throws a
 * readable error for a uuid that is not on the page (an error of the fixture).
 */
export function applyPersonEdits(
  document: CanvasDocument,
  edits: readonly PersonEdit[],
  placedUuids: readonly string[],
  selected?: string | null,
): CanvasDocument {
  let current = document;
  for (const edit of edits) {
    if (edit.action === 'set_page_value') {
      current = { ...current, page: { ...current.page, [edit.field]: structuredClone(edit.value) } };
      continue;
    }
    const uuid = resolvePlacedRefs(edit.uuid, placedUuids, selected);
    if (!findComponent(current.layout, uuid))
      throw new RangeError(`the person edits ${uuid}, which is not on the page`);
    if (edit.action === 'move') {
      const reference = edit.reference_uuid && resolvePlacedRefs(edit.reference_uuid, placedUuids, selected);
      const operation = { uuids: [uuid], target: resolvePlacedRefs(edit.target, placedUuids, selected) };
      current = applyOutputs(current, [
        {
          type: 'move_components',
          call_id: 'person',
          operations: [
            { ...operation, placement: edit.placement, ...(reference ? { reference_uuid: reference } : {}) },
          ],
        },
      ]);
      continue;
    }
    current =
      edit.action === 'edit'
        ? applyOutputs(current, [
            { type: 'edit_components', call_id: 'person', component_updates: { [uuid]: edit.props } },
          ])
        : { ...current, layout: { regions: mapRegions(current, (nodes) => withoutUuid(nodes, uuid)) } };
  }
  return current;
}

function mapRegions(document: CanvasDocument, change: (nodes: ComponentNode[]) => ComponentNode[]) {
  return Object.fromEntries(
    Object.entries(document.layout.regions).map(([id, region]) => [
      id,
      { ...region, components: change(region.components) },
    ]),
  );
}

function withoutUuid(nodes: readonly ComponentNode[], uuid: string): ComponentNode[] {
  return nodes
    .filter((node) => node.uuid !== uuid)
    .map((node) =>
      node.slots
        ? {
            ...node,
            slots: Object.fromEntries(
              Object.entries(node.slots).map(([slot, children]) => [slot, withoutUuid(children, uuid)]),
            ),
          }
        : node,
    );
}
