import { produce } from 'immer';
import type { ComponentNode, Layout, PageValues } from '../wire/layout.js';
import type { ApplyResult, ToolOutput } from '../wire/outputs.js';
import { LayoutError } from './layout-error.js';
import { findComponent, resolveTargetList, walkLayout } from './layout-tree.js';

/**
 * The host document the outputs change: the layout and, beside it, the page fields (`set_page_value`).
 * It mirrors a request's `context.current_layout` and `context.page`.
 */
export interface CanvasDocument {
  layout: Layout;
  page: PageValues;
}

/**
 * Applies outputs in order and returns the new document (§4). Pure: the input is never changed. All or nothing:
 * an impossible operation throws a {@link LayoutError} and no output of the list is applied.
 */
export function applyOutputs(document: CanvasDocument, outputs: readonly ToolOutput[]): CanvasDocument {
  return outputs.reduce(applyOutput, document);
}

/**
 * Applies each output on its own, skipping the impossible ones, and reports what happened to each:
 * the `apply_results` a client sends with the next hop.
 */
export function applyOutputsWithResults(
  document: CanvasDocument,
  outputs: readonly ToolOutput[],
): { document: CanvasDocument; results: ApplyResult[] } {
  const results: ApplyResult[] = [];
  let current = document;
  for (const output of outputs) {
    try {
      current = applyOutput(current, output);
      results.push({ call_id: output.call_id, status: 'applied' });
    } catch (error) {
      if (!(error instanceof LayoutError)) throw error;
      results.push({ call_id: output.call_id, status: 'rejected', reason: error.message });
    }
  }
  return { document: current, results };
}

/** Applies one output; throws a {@link LayoutError} and changes nothing when it is impossible. */
export function applyOutput(document: CanvasDocument, output: ToolOutput): CanvasDocument {
  switch (output.type) {
    case 'place_components':
      return output.operations.reduce(
        (current, operation) =>
          produce(current, (draft) => {
            assertNewUuids(current.layout, operation.components, output.call_id);
            const list = resolveTargetList(draft.layout, operation.target, output.call_id);
            // Copies, so the output the caller holds is not frozen or aliased by the new document.
            const components = structuredClone(operation.components) as ComponentNode[];
            if (operation.placement === 'inside') {
              list.push(...components);
              return;
            }
            if (operation.reference_uuid === undefined) {
              throw new LayoutError('missing_reference', `placement "${operation.placement}" needs a reference_uuid`, output.call_id);
            }
            const index = list.findIndex((node) => node.uuid === operation.reference_uuid);
            if (index === -1) {
              throw new LayoutError(
                'unknown_reference',
                `reference_uuid "${operation.reference_uuid}" is not in target "${operation.target}"`,
                output.call_id,
              );
            }
            list.splice(operation.placement === 'above' ? index : index + 1, 0, ...components);
          }),
        document,
      );
    case 'edit_components':
      return produce(document, (draft) => {
        for (const [uuid, props] of Object.entries(output.component_updates)) {
          const node = findComponent(draft.layout, uuid);
          if (!node) throw new LayoutError('unknown_uuid', `no component "${uuid}" to edit`, output.call_id);
          Object.assign(node.props, structuredClone(props));
        }
      });
    case 'set_page_value':
      return produce(document, (draft) => {
        draft.page[output.field] = structuredClone(output.value);
      });
  }
}

function assertNewUuids(layout: Layout, components: readonly ComponentNode[], callId: string): void {
  const taken = new Set<string>();
  walkLayout(layout, (node) => taken.add(node.uuid));
  walkLayout({ regions: { placed: { components: [...components] } } }, (node) => {
    if (taken.has(node.uuid)) throw new LayoutError('duplicate_uuid', `uuid "${node.uuid}" is already in the layout`, callId);
    taken.add(node.uuid);
  });
}
