import type { Catalog } from '../config/catalog.js';
import type { ApprovalRule } from '../config/agents-config.js';
import { findComponentPaths } from '../layout/layout-tree.js';
import { subtreeUuids } from '../layout/tree-edit.js';
import type { ErrorIssue } from '../wire/errors.js';
import type { ComponentNode, Layout } from '../wire/layout.js';
import type { ToolOutput } from '../wire/outputs.js';
import type { ApprovalAnswer, ProposedChange, ProposedComponent, WaitingOf } from '../wire/waits.js';

/** Stands in the transcript for a proposed change's result until the person decides (spec §20.1, §20.5). */
export const APPROVAL_PENDING_RESULT = 'The change is proposed to the person; their decision follows.';

/** Told to the model before an approved change's own result (spec §20.5, worded exactly so). */
export const APPROVED_RESULT = 'The person approved this change.';

/** Told to the model for a rejected change (spec §20.5, worded exactly so). */
export const REJECTED_RESULT = 'The person rejected this change, so it was not applied.';

/** Told to the model for a change that needs approval when the client cannot ask for it (spec §20.5). */
export const APPROVAL_UNAVAILABLE_RESULT =
  "This change needs the person's approval, which this editor cannot ask for, so it was not applied.";

/** The props whose string value names a component for people, in order (spec §20.5). */
const NAMING_PROPS = ['heading', 'title', 'label', 'name', 'text'] as const;

/** The components an output touches, each with the components inside it (spec §20.5), found in `layout`. */
function touched(output: ToolOutput, layout: Layout): ComponentNode[] {
  // One walk of the layout for all of an output's uuids, not one per uuid.
  const found = (uuids: readonly string[]) => {
    const paths = findComponentPaths(layout, new Set(uuids));
    return uuids.flatMap((uuid) => {
      const path = paths.get(uuid);
      return path ? [path.node] : [];
    });
  };
  switch (output.type) {
    case 'remove_components':
      return found(output.uuids);
    case 'edit_components':
      return found(Object.keys(output.component_updates));
    case 'move_components':
      return found(output.operations.flatMap((operation) => operation.uuids));
    case 'place_components':
      return output.operations.flatMap((operation) => operation.components);
    default:
      return [];
  }
}

/** How many components an output touches (spec §20.5): a removal's and a placement's nested ones included. */
function touchedCount(output: ToolOutput, layout: Layout): number {
  const nodes = touched(output, layout);
  const nested = output.type === 'remove_components' || output.type === 'place_components';
  return nodes.reduce((count, node) => count + (nested ? subtreeUuids(node).length : 1), 0);
}

/** Whether the agent's rule makes `output` a proposal (spec §20.5); `layout` is the page the output was made on. */
export function needsApproval(output: ToolOutput, rule: ApprovalRule | undefined, layout: Layout): boolean {
  if (!rule) return false;
  if ((rule.outputs as readonly string[]).includes(output.type)) return true;
  return rule.over_components !== undefined && touchedCount(output, layout) > rule.over_components;
}

/** A proposed output as the person is shown it: the components it touches by catalog name, never by uuid. */
export function proposedChange(output: ToolOutput, layout: Layout, catalog: Catalog): ProposedChange {
  const components = touched(output, layout).map((node): ProposedComponent => {
    const entry = catalog.components.find((component) => component.id === node.component);
    const text = NAMING_PROPS.map((prop) => node.props[prop]).find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    );
    return {
      component: node.component,
      name: entry?.name ?? node.component,
      ...(text === undefined ? {} : { text: text.trim().slice(0, 200) }),
      inside: subtreeUuids(node).length - 1,
    };
  });
  return { call_id: output.call_id, type: output.type, components };
}

/** Why an approval does not fit its proposal (spec §20.5): an approved `call_id` that is not one of the changes. */
export function approvalProblems(waiting: WaitingOf<'approval'>, answer: ApprovalAnswer): ErrorIssue[] {
  const proposed = new Set(waiting.approval.changes.map((change) => change.call_id));
  return answer.approved.flatMap((id, index) =>
    proposed.has(id)
      ? []
      : [{ path: `answer.approved.${index}`, message: `"${id}" is not one of the proposed changes; approve those.` }],
  );
}
