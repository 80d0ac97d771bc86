// The catalog's components as GrapesJS component types, and the mapping both ways: a GrapesJS component ↔ a
// protocol ComponentNode. Each prop lives in a child element marked `data-prop` (its text, or an attribute), so the
// person edits it in GrapesJS's own text editor and the agent reads the edit on its next hop.
import type { ComponentNode } from '@canvas-ai/protocol';
import type { Component, ComponentDefinition, Editor } from 'grapesjs';

/** One prop of a component: the child element that shows it, and the prop kept in its `href` (a link's url). */
interface Part {
  prop: string;
  tag: string;
  href?: string;
}

/** Every catalog component (fixtures/catalog.yaml): its element and the parts that hold its props. */
const TYPES: Record<string, { tag: string; parts: Part[] }> = {
  'gjs.hero': {
    tag: 'section',
    parts: [
      { prop: 'heading', tag: 'h1' },
      { prop: 'text', tag: 'p' },
    ],
  },
  'gjs.text': { tag: 'div', parts: [{ prop: 'body', tag: 'p' }] },
  'gjs.button': { tag: 'div', parts: [{ prop: 'label', tag: 'a', href: 'url' }] },
};

/** Registers the catalog's types with GrapesJS, and a block for each so the person can drag them in too. */
export function registerComponents(editor: Editor): void {
  for (const [type, { tag, parts }] of Object.entries(TYPES)) {
    editor.Components.addType(type, {
      isComponent: (el: HTMLElement) => el.dataset?.component === type,
      model: { defaults: { tagName: tag, attributes: { 'data-component': type }, droppable: false } },
    });
    const example = Object.fromEntries(parts.map((part) => [part.prop, part.prop === 'url' ? '#' : part.prop]));
    editor.Blocks.add(type, { label: type.slice('gjs.'.length), content: toDefinition(type, example) });
  }
}

/** Whether a GrapesJS component is one of the catalog's (the agent sees those; anything else stays the page's). */
export function isCatalogComponent(component: Component): boolean {
  return Object.hasOwn(TYPES, String(component.get('type')));
}

/** The uuid a catalog component carries (`data-uuid`), or undefined for one just dropped in. */
export function uuidOf(component: Component): string | undefined {
  return component.getAttributes()['data-uuid'];
}

/** GrapesJS → protocol: the component as the agent sees it. */
export function toNode(component: Component): ComponentNode {
  const type = component.get('type') as string;
  const props: Record<string, string> = {};
  for (const part of TYPES[type]?.parts ?? []) {
    const child = partOf(component, part.prop);
    if (!child) continue;
    props[part.prop] = textOf(child.getInnerHTML());
    if (part.href) props[part.href] = child.getAttributes().href ?? '';
  }
  return { uuid: uuidOf(component) ?? '', component: type, props };
}

/** Protocol → GrapesJS: the definition of a new component showing `node`. */
export function fromNode(node: ComponentNode): ComponentDefinition {
  const definition = toDefinition(node.component, node.props as Record<string, unknown>);
  return { ...definition, attributes: { ...definition.attributes, 'data-uuid': node.uuid } };
}

/** Shows `node`'s props in an existing component, changing only the parts whose value differs. */
export function updateProps(component: Component, node: ComponentNode): void {
  const current = toNode(component).props;
  for (const part of TYPES[node.component]?.parts ?? []) {
    const child = partOf(component, part.prop);
    if (!child) continue;
    const text = String(node.props[part.prop] ?? '');
    if (current[part.prop] !== text) child.components().reset([{ type: 'textnode', content: text }]);
    if (part.href && current[part.href] !== String(node.props[part.href] ?? ''))
      child.addAttributes({ href: String(node.props[part.href] ?? '') });
  }
}

function toDefinition(type: string, props: Record<string, unknown>): ComponentDefinition {
  const spec = TYPES[type];
  if (!spec) throw new Error(`the catalog has no component ${type}`);
  return {
    type,
    attributes: { 'data-component': type },
    components: spec.parts.map((part) => ({
      type: 'text',
      tagName: part.tag,
      attributes: { 'data-prop': part.prop, ...(part.href ? { href: String(props[part.href] ?? '') } : {}) },
      // A text node: GrapesJS escapes it, so model text is never markup.
      components: [{ type: 'textnode', content: String(props[part.prop] ?? '') }],
    })),
  };
}

function partOf(component: Component, prop: string): Component | undefined {
  return component.components().find((child: Component) => child.getAttributes()['data-prop'] === prop);
}

/** The text of escaped inner html (what GrapesJS gives for a part), without any markup the person added. */
function textOf(html: string): string {
  return new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
}
