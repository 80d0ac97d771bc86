import type { CanvasDocument, ComponentNode } from '@canvas-ai/protocol';

/**
 * The demo's derived prop (spec §10.1): every heading's `anchor`, made from its text, as a page builder computes a
 * slug. The catalog marks it derived, so the agent never sets it and placed headings list it in `derived`; the
 * editor fills it in after every change, and neither the server's report of the person's changes nor an undo
 * counts it. One walk; the document is copied only when an anchor changes.
 */
export function withHeadingAnchors(document: CanvasDocument): CanvasDocument {
  const stale: ComponentNode[] = [];
  const visit = (nodes: readonly ComponentNode[]) => {
    for (const node of nodes) {
      if (node.component === 'sdc.demo.heading' && node.props.anchor !== anchorOf(node)) stale.push(node);
      for (const children of Object.values(node.slots ?? {})) visit(children);
    }
  };
  for (const region of Object.values(document.layout.regions)) visit(region.components);
  if (stale.length === 0) return document;
  const copy = structuredClone(document);
  const update = (nodes: ComponentNode[]) => {
    for (const node of nodes) {
      if (node.component === 'sdc.demo.heading') node.props.anchor = anchorOf(node);
      for (const children of Object.values(node.slots ?? {})) update(children);
    }
  };
  for (const region of Object.values(copy.layout.regions)) update(region.components);
  return copy;
}

/** `Our best sellers!` → `our-best-sellers`. */
function anchorOf(node: ComponentNode): string {
  return String(node.props.text ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
