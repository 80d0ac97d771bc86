import { stringify } from 'yaml';
import type { CatalogComponent, PropDefinition } from '../config/catalog.js';
import { catalogIndex } from './component-spec.js';
import { yamlFlow } from './format.js';
import { closestMatches } from './suggest.js';
import { ToolInputError, type ToolDefinition } from './tool-definition.js';
import { GetComponentDetailsInput } from './tool-inputs.js';

/**
 * `get_component_details` (spec §12): the props (type, enum, required, default, description, examples) and slots (with
 * their allowed children) of catalog components, as YAML-like text. Changes nothing, so it has no output.
 */
export const getComponentDetailsTool: ToolDefinition<GetComponentDetailsInput> = {
  name: 'get_component_details',
  description:
    'Get the props (type, allowed values, required, default, examples) and slots of catalog components by id.',
  input: GetComponentDetailsInput,
  allowParallel: true,
  execute(input, context) {
    const byId = catalogIndex(context.catalog);
    const ids = [...new Set(input.component_ids)];
    const unknown = ids.filter((id) => !byId.has(id));
    if (unknown.length > 0) {
      const known = [...byId.keys()];
      const lines = unknown.map((id) => {
        const close = closestMatches(id, known);
        return `- \`${id}\`${close.length ? `: did you mean ${close.join(' or ')}?` : ''}`;
      });
      throw new ToolInputError(
        `get_component_details: ${unknown.length === 1 ? 'this id is' : 'these ids are'} not in the catalog:\n${lines.join('\n')}\n` +
          `Catalog ids: ${known.join(', ')}`,
      );
    }
    return { result: ids.map((id) => describeComponent(byId.get(id)!)).join('\n\n') };
  },
};

function describeProp(name: string, prop: PropDefinition): string[] {
  const lines = [`    ${name}:`, `      type: ${prop.type}${prop.type === 'image' ? ' # {src, alt}' : ''}`];
  if (prop.required) lines.push('      required: true');
  if (prop.derived) lines.push('      derived: true # computed by the page: never set it');
  if (prop.enum) lines.push(`      enum: ${yamlFlow(prop.enum)}`);
  if (prop.default !== undefined) lines.push(`      default: ${yamlFlow(prop.default)}`);
  if (prop.title) lines.push(`      title: ${prop.title}`);
  if (prop.description) lines.push(`      description: ${prop.description.trim()}`);
  if (prop.examples?.length) lines.push(`      examples: ${yamlFlow(prop.examples)}`);
  return lines;
}

/** One component as YAML-like text, ending with an example of how to place it. */
function describeComponent(component: CatalogComponent): string {
  const lines = [`${component.id}:`, `  name: ${component.name}`, `  description: ${component.description.trim()}`];
  const props = Object.entries(component.props);
  if (props.length === 0) lines.push('  props: none');
  else lines.push('  props:', ...props.flatMap(([name, prop]) => describeProp(name, prop)));
  const slots = Object.entries(component.slots);
  if (slots.length === 0) lines.push('  slots: none');
  else {
    lines.push('  slots:');
    for (const [name, slot] of slots) {
      lines.push(`    ${name}:`);
      if (slot.title) lines.push(`      title: ${slot.title}`);
      if (slot.description) lines.push(`      description: ${slot.description.trim()}`);
      lines.push(`      allowed: ${slot.allowed ? yamlFlow(slot.allowed) : 'any component'}`);
    }
  }
  lines.push('  example of components YAML:', ...placementExample(component).map((line) => `    ${line}`));
  return lines.join('\n');
}

/** A minimal `components` entry: the required props, from each one's first example when the catalog has one. */
function placementExample(component: CatalogComponent): string[] {
  const props: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(component.props)) {
    if (prop.required) props[name] = prop.examples?.[0] ?? `<${prop.type}>`;
  }
  const slots = Object.fromEntries(Object.keys(component.slots).map((name) => [name, []]));
  const body: Record<string, unknown> = {};
  if (Object.keys(props).length) body.props = props;
  if (Object.keys(slots).length) body.slots = slots;
  return stringify([{ [component.id]: body }], { lineWidth: 0 })
    .trimEnd()
    .split('\n');
}
