import { derivedPropsOf, withDerivedListed } from '../layout/derived-props.js';
import { locate, subtreeUuids } from '../layout/tree-edit.js';
import type { ComponentNode } from '../wire/layout.js';
import type { RemoveComponentsOutput } from '../wire/outputs.js';
import { plural, throwProblems } from './format.js';
import { unknownUuidMessage } from './layout-checks.js';
import type { ToolDefinition } from './tool-definition.js';
import { SuggestionBudget } from './uuid-suggestions.js';
import { RemoveComponentsInput } from './tool-inputs.js';

const NAME = 'remove_components';

/**
 * `remove_components` (spec §12, revision 1.2): takes components off the page, each with everything in its slots.
 * Every uuid must be on the page; one listed twice, or inside another listed one, is left out (it goes anyway) and
 * the result says so. Offered only to a turn whose client declared the output (spec §5.1).
 */
export const removeComponentsTool: ToolDefinition<RemoveComponentsInput> = {
  name: NAME,
  description:
    'Remove components from the page by uuid. The components inside their slots are removed with them. Use it when ' +
    'the person asks to drop, delete or take out something that is on the page.',
  input: RemoveComponentsInput,
  allowParallel: true,
  outputType: NAME,
  execute(input, context) {
    const derivedOf = derivedPropsOf(context.catalog);
    const layout = context.document.layout;
    const problems: string[] = [];
    const found = new Map<string, ComponentNode>();
    const budget = new SuggestionBudget(context.suggestions);
    input.uuids.forEach((uuid, index) => {
      const located = locate(layout, uuid);
      if (!located) problems.push(`uuids[${index}]: ${unknownUuidMessage(layout, uuid, budget)}`);
      else found.set(uuid, located.node);
    });
    throwProblems(NAME, problems);

    // A component inside another one being removed goes with it: naming it too would make the removal fail.
    const inner = new Map<string, string>();
    for (const [uuid, node] of found) {
      for (const child of subtreeUuids(node).slice(1)) if (found.has(child)) inner.set(child, uuid);
    }
    const uuids = [...found.keys()].filter((uuid) => !inner.has(uuid));
    const output: RemoveComponentsOutput = {
      type: NAME,
      call_id: context.callId,
      uuids,
      // What the host must still hold for the removal to apply: a person's change inside it meanwhile is kept. Each
      // node lists its derived props, the catalog's marks included, so the host skips them (spec §10.1).
      replaces: Object.fromEntries(
        uuids.map((uuid) => [uuid, withDerivedListed(structuredClone(found.get(uuid)!), derivedOf)]),
      ),
    };
    const lines = uuids.map((uuid) => {
      const { node, target, index } = locate(layout, uuid)!;
      const inside = subtreeUuids(node).length - 1;
      const along = inside > 0 ? `, with the ${plural(inside, 'component')} inside it` : '';
      return `- ${uuid} (${node.component}), #${index + 1} in ${target}${along}`;
    });
    for (const [uuid, outer] of inner) lines.push(`- ${uuid} went with ${outer}, which holds it`);
    return {
      output,
      result: [`Removed ${plural(uuids.length, 'component')}:`, ...lines].join('\n'),
    };
  },
};
