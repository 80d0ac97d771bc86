import type { CanvasDocument } from '../layout/apply-outputs.js';
import { countComponents } from '../layout/layout-tree.js';
import { WHOLE_TREE_MAX_COMPONENTS } from './place-components.js';
import { uuidTree } from './uuid-tree.js';

/**
 * The predicted layout after a removal or a move, for the tool result: the whole uuid tree on a page of up to
 * {@link WHOLE_TREE_MAX_COMPONENTS} components, else only a note (the system prompt carries the whole page every hop).
 */
export function layoutAfter(what: string, document: CanvasDocument): string[] {
  const total = countComponents(document.layout);
  if (total <= WHOLE_TREE_MAX_COMPONENTS) return [`Layout after ${what}:`, uuidTree(document.layout)];
  return [`The page now has ${total} components; your instructions show all of them.`];
}
