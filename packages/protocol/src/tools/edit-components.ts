import { jsonEqual } from '../layout/conflicts.js';
import { findComponentPaths } from '../layout/layout-tree.js';
import type { Props } from '../wire/layout.js';
import type { EditComponentsOutput } from '../wire/outputs.js';
import { catalogIndex } from './component-spec.js';
import { fail, isMap, kindOf, plural, quote, throwProblems } from './format.js';
import { unknownUuidMessage } from './layout-checks.js';
import { parseYamlData } from './parse-yaml.js';
import type { ToolDefinition } from './tool-definition.js';
import { EditComponentsInput, TOOL_INPUT_LIMITS } from './tool-inputs.js';
import { SuggestionBudget } from './uuid-suggestions.js';
import { checkProps } from './validate-props.js';

const NAME = 'edit_components';

const SHAPE = 'a YAML map of uuid → changed props, e.g.\n  <uuid>:\n    <prop>: <new value>';

/**
 * `edit_components` (spec §12): changes props of components already on the page. Every uuid must be in the layout and
 * every prop must exist on that component's catalog definition and pass its type and enum checks; nothing is
 * applied unless all edits are valid. The result says what changed, old → new.
 */
export const editComponentsTool: ToolDefinition<EditComponentsInput> = {
  name: NAME,
  description:
    'Change props of components already on the page. `component_edits` is a YAML map `<uuid>: {prop: value}` ' +
    'with only the props that change; uuids come from the current layout or from earlier results.',
  input: EditComponentsInput,
  allowParallel: true,
  outputType: 'edit_components',
  execute(input, context) {
    const edits = readEdits(input.component_edits);
    const byId = catalogIndex(context.catalog);
    const layout = context.document.layout;
    // One walk of the page finds every edited component (spec §13.2).
    const nodes = findComponentPaths(layout, new Set(Object.keys(edits)));
    const problems: string[] = [];
    const updates: Record<string, Props> = {};
    const replaces: Record<string, Props> = {};
    const changes: string[] = [];
    const budget = new SuggestionBudget(context.suggestions);
    for (const [uuid, props] of Object.entries(edits)) {
      const node = nodes.get(uuid)?.node;
      if (!node) {
        problems.push(`component_edits.${uuid}: ${unknownUuidMessage(layout, uuid, budget)}`);
        continue;
      }
      const definition = byId.get(node.component);
      if (!definition) {
        problems.push(
          `component_edits.${uuid}: ${uuid} is a \`${node.component}\`, a component the catalog does not have, so it cannot be edited`,
        );
        continue;
      }
      if (!isMap(props) || Object.keys(props).length === 0) {
        problems.push(
          `component_edits.${uuid}: give a map of the props of ${node.component} to change; got ${isMap(props) ? 'an empty map' : kindOf(props)}`,
        );
        continue;
      }
      const checked = checkProps(
        definition,
        props,
        'edit',
        { imageOrigins: context.catalog.image_origins ?? [] },
        node.derived,
      );
      problems.push(...checked.problems.map((problem) => `component_edits.${uuid}: ${problem}`));
      const { changed, described } = changedProps(node.props, checked.props);
      changes.push(`- ${uuid} (${node.component}): ${described.join('; ')}`);
      if (Object.keys(changed).length === 0) continue;
      updates[uuid] = changed;
      // What the host must still hold for the edit to apply: a person's change meanwhile is kept (spec §16.2).
      replaces[uuid] = Object.fromEntries(
        Object.keys(changed).map((name) => [name, Object.hasOwn(node.props, name) ? node.props[name]! : null]),
      );
    }
    throwProblems(NAME, problems);
    if (Object.keys(updates).length === 0) {
      // Nothing to apply, so no output (spec §12): the model hears that its values are already on the page.
      return {
        result: ['Nothing changed: every value is already on the page, so no edit was sent.', ...changes].join('\n'),
      };
    }
    const output: EditComponentsOutput = {
      type: NAME,
      call_id: context.callId,
      component_updates: updates,
      replaces,
    };
    return {
      output,
      result: [`Edited ${plural(Object.keys(updates).length, 'component')}:`, ...changes].join('\n'),
    };
  },
};

/** The map of `component_edits`, or a refusal: YAML, a map of at least one uuid, at most {@link TOOL_INPUT_LIMITS}. */
function readEdits(yaml: string): Record<string, unknown> {
  const parsed = parseYamlData(yaml, 'component_edits');
  if (!parsed.ok) fail(NAME, parsed.message);
  const edits = parsed.value;
  if (!isMap(edits) || Object.keys(edits).length === 0) {
    fail(NAME, `component_edits must be ${SHAPE}\ngot ${isMap(edits) ? 'an empty map' : kindOf(edits)}`);
  }
  const count = Object.keys(edits).length;
  if (count > TOOL_INPUT_LIMITS.editedPerCall) {
    fail(
      NAME,
      `component_edits names ${count} components; one call edits at most ${TOOL_INPUT_LIMITS.editedPerCall}. ` +
        'Edit the others in your next call.',
    );
  }
  return edits;
}

/**
 * The props of an edit that change what the component holds, and each prop described for the model. Only changed
 * props are sent (spec §11): a value the component already holds is not an edit.
 */
function changedProps(current: Props, edit: Props): { changed: Props; described: string[] } {
  const changed: Props = {};
  const described: string[] = [];
  for (const [name, value] of Object.entries(edit)) {
    const old = Object.hasOwn(current, name) ? current[name]! : undefined;
    if (old !== undefined && jsonEqual(old, value)) described.push(`${name} ${quote(value)} (unchanged, not sent)`);
    else {
      changed[name] = value;
      described.push(`${name} ${quote(old)} → ${quote(value)}`);
    }
  }
  return { changed, described };
}
