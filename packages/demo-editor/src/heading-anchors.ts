import type { CanvasDocument, ComponentNode } from '@canvas-ai/protocol';

/**
 * The demo's derived prop (spec §10.1): every heading's `anchor`, made from its text, as a page builder computes a
 * slug. The editor fills it in after every change and lists it in the heading's `derived` (on headings the person
 * made too, not only on the ones the agent placed), so the agent never sets it, the server does not report it as the
 * person's change, and an undo skips it. One walk; only the nodes on the way to a heading that changes are copied,
 * everything else stays shared (the document is immutable).
 */
export function withHeadingAnchors(document: CanvasDocument): CanvasDocument {
  let changed = false;
  const regions: CanvasDocument['layout']['regions'] = {};
  for (const [name, region] of Object.entries(document.layout.regions)) {
    const components = anchored(region.components);
    regions[name] = components === region.components ? region : { ...region, components };
    if (components !== region.components) changed = true;
  }
  return changed ? { ...document, layout: { ...document.layout, regions } } : document;
}

/** `nodes` with every heading's anchor filled in and listed as derived; the same array when nothing changed. */
function anchored(nodes: ComponentNode[]): ComponentNode[] {
  let copy: ComponentNode[] | undefined;
  nodes.forEach((node, index) => {
    const next = anchoredNode(node);
    if (next === node) return;
    copy ??= [...nodes];
    copy[index] = next;
  });
  return copy ?? nodes;
}

function anchoredNode(node: ComponentNode): ComponentNode {
  let next = node;
  if (node.component === 'sdc.demo.heading') {
    const anchor = anchorOf(node);
    if (node.props.anchor !== anchor) next = { ...next, props: { ...node.props, anchor } };
    if (!node.derived?.includes('anchor')) next = { ...next, derived: [...(node.derived ?? []), 'anchor'] };
  }
  if (node.slots) {
    let slots: NonNullable<ComponentNode['slots']> | undefined;
    for (const [name, children] of Object.entries(node.slots)) {
      const updated = anchored(children);
      if (updated === children) continue;
      slots ??= { ...node.slots };
      slots[name] = updated;
    }
    if (slots) next = { ...next, slots };
  }
  return next;
}

/** `Our best sellers!` → `our-best-sellers`. */
function anchorOf(node: ComponentNode): string {
  return String(node.props.text ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
