import type { Catalog, CatalogComponent } from '../config/catalog.js';
import type { ComponentNode, Props } from '../wire/layout.js';
import { isMap, kindOf, listNames, quote } from './format.js';
import { catalogDerived } from '../layout/derived-props.js';
import { parseYamlData } from './parse-yaml.js';
import { didYouMean } from './suggest.js';
import { checkProps, type ImageRules } from './validate-props.js';

/** The most components one `place_components` call may place, slot children included. */
const MAX_PLACED_COMPONENTS = 500;

/** One component the model asked to place, checked against the catalog; it has no uuid yet. */
export interface ComponentSpec {
  component: CatalogComponent;
  props: Props;
  /** Every slot of the catalog component, in catalog order; empty ones are `[]`. */
  slots: Record<string, ComponentSpec[]>;
}

/** How one list item must look, shown to the model when it writes something else. */
const ITEM_SHAPE =
  'each item must be a single-key map `component_id: {props: {...}, slots: {slot_name: [...]}}`, e.g.\n' +
  '  - <component_id>:\n      props: {<prop>: <value>}\n      slots: {<slot>: [<components in the same format>]}';

/** Finds catalog components by id. */
export function catalogIndex(catalog: Catalog): Map<string, CatalogComponent> {
  return new Map(catalog.components.map((component) => [component.id, component]));
}

/** A readable place in the YAML: `components[1].slots.content[0]`. */
type Where = string;

/**
 * Parses and checks the `components` YAML of one operation: the list shape, every component id, prop and slot,
 * and each child against its slot's `allowed` list. Problems are appended to `problems`, each prefixed with where
 * it is (`operations[0].components[1]`); the specs are only meaningful when no problem was added.
 */
export function parseComponentList(
  yamlText: string,
  catalog: Catalog,
  where: Where,
  problems: string[],
): ComponentSpec[] {
  const parsed = parseYamlData(yamlText, `${where}.components`);
  if (!parsed.ok) {
    problems.push(parsed.message);
    return [];
  }
  if (!Array.isArray(parsed.value)) {
    problems.push(
      `${where}.components must be a YAML list; got ${kindOf(parsed.value)}. Start each component with "- "; ${ITEM_SHAPE}`,
    );
    return [];
  }
  if (parsed.value.length === 0) {
    problems.push(`${where}.components is an empty list; give at least one component`);
    return [];
  }
  const byId = catalogIndex(catalog);
  const counter = { count: 0 };
  const rules = { imageOrigins: catalog.image_origins ?? [] };
  const specs = parseList(parsed.value, `${where}.components`, { byId, problems, counter, rules }, undefined);
  if (counter.count > MAX_PLACED_COMPONENTS) {
    problems.push(
      `${where} places ${counter.count} components; at most ${MAX_PLACED_COMPONENTS} per call are accepted`,
    );
  }
  return specs;
}

interface ParseState {
  byId: Map<string, CatalogComponent>;
  problems: string[];
  counter: { count: number };
  rules: ImageRules;
}

/** A slot's constraint on its children, when parsing the list of a slot. */
interface SlotRule {
  owner: string;
  slot: string;
  allowed: readonly string[] | undefined;
}

function parseList(
  items: readonly unknown[],
  where: Where,
  state: ParseState,
  rule: SlotRule | undefined,
): ComponentSpec[] {
  const specs: ComponentSpec[] = [];
  items.forEach((item, index) => {
    const spec = parseItem(item, `${where}[${index}]`, state, rule);
    if (spec) specs.push(spec);
  });
  return specs;
}

function parseItem(
  item: unknown,
  where: Where,
  state: ParseState,
  rule: SlotRule | undefined,
): ComponentSpec | undefined {
  const { byId, problems } = state;
  state.counter.count += 1;
  if (!isMap(item) || Object.keys(item).length !== 1) {
    const got = isMap(item) ? `a map with keys ${listNames(Object.keys(item))}` : `${kindOf(item)} ${quote(item)}`;
    problems.push(`${where}: ${ITEM_SHAPE}\n  got ${got}`);
    return undefined;
  }
  const [id, body] = Object.entries(item)[0]!;
  const component = byId.get(id);
  if (!component) {
    const known = [...byId.keys()];
    const hint = didYouMean(id, known);
    problems.push(`${where}: unknown component \`${id}\`${hint || `. The catalog has: ${listNames(known, 40)}.`}`);
    return undefined;
  }
  if (rule?.allowed && !rule.allowed.includes(id)) {
    problems.push(
      `${where}: ${id} is not allowed in slot \`${rule.slot}\` of ${rule.owner}; allowed: ${rule.allowed.join(', ')}`,
    );
  }
  const fields = body === null ? {} : body;
  if (!isMap(fields)) {
    problems.push(
      `${where}: the value under ${id} must be a map with \`props\` and/or \`slots\`; got ${kindOf(fields)} ${quote(fields)}`,
    );
    return undefined;
  }
  const unexpected = Object.keys(fields).filter((key) => key !== 'props' && key !== 'slots');
  if (unexpected.length > 0) {
    problems.push(
      `${where}: ${id} has ${listNames(unexpected.map((key) => `\`${key}\``))} next to props/slots; only \`props\` and \`slots\` ` +
        `may appear under a component id. Put prop values under \`props:\` (e.g. \`- ${id}: {props: {${unexpected[0]}: ...}}\`).`,
    );
  }
  const givenProps = fields.props ?? {};
  let props: Props = {};
  if (!isMap(givenProps)) {
    problems.push(`${where}: props of ${id} must be a map of prop → value; got ${kindOf(givenProps)}`);
  } else {
    const checked = checkProps(component, givenProps, 'place', state.rules);
    props = checked.props;
    for (const problem of checked.problems) problems.push(`${where}: ${problem}`);
  }
  return { component, props, slots: parseSlots(component, fields.slots ?? {}, where, state) };
}

function parseSlots(
  component: CatalogComponent,
  given: unknown,
  where: Where,
  state: ParseState,
): Record<string, ComponentSpec[]> {
  const { problems } = state;
  const slots: Record<string, ComponentSpec[]> = {};
  for (const name of Object.keys(component.slots)) slots[name] = [];
  if (!isMap(given)) {
    problems.push(
      `${where}: slots of ${component.id} must be a map of slot name → list of components; got ${kindOf(given)}`,
    );
    return slots;
  }
  const known = Object.keys(component.slots);
  for (const [name, children] of Object.entries(given)) {
    const definition = Object.hasOwn(component.slots, name) ? component.slots[name] : undefined;
    if (!definition) {
      const list = known.length ? ` Its slots are: ${known.join(', ')}.` : ' It has no slots.';
      problems.push(`${where}: ${component.id} has no slot \`${name}\`${didYouMean(name, known) || '.'}${list}`);
      continue;
    }
    const items = children ?? [];
    if (!Array.isArray(items)) {
      problems.push(
        `${where}.slots.${name}: slot \`${name}\` of ${component.id} must be a list of components; got ${kindOf(items)}`,
      );
      continue;
    }
    const rule = { owner: component.id, slot: name, allowed: definition.allowed };
    slots[name] = parseList(items, `${where}.slots.${name}`, state, rule);
  }
  return slots;
}

/** Turns checked specs into layout nodes, assigning uuids in placed order (each node before its slot children). */
export function buildNodes(specs: readonly ComponentSpec[], newUuid: () => string): ComponentNode[] {
  return specs.map((spec) => {
    const node: ComponentNode = { uuid: newUuid(), component: spec.component.id, props: spec.props };
    if (Object.keys(spec.component.slots).length > 0) {
      node.slots = {};
      for (const [name, children] of Object.entries(spec.slots)) node.slots[name] = buildNodes(children, newUuid);
    }
    // The host computes these: it learns which from the node, without the catalog (spec §10.1).
    const derived = catalogDerived(spec.component);
    if (derived.length > 0) node.derived = derived;
    return node;
  });
}
