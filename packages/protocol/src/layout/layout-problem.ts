import { isPlainLayout } from './plain-layout.js';
import { LayoutChecker } from '../check/wire-checkers.js';
import type { Layout } from '../wire/layout.js';
import { LIMITS } from '../wire/limits.js';
import { countComponents, findDuplicateUuid } from './layout-tree.js';

/**
 * What is wrong with a layout a host hands over, as one sentence naming the place (`regions.content.components.2.uuid:
 * …`), or undefined when a server would accept it (spec §10, §16.4): its shape, a uuid held twice (a copied
 * component that kept its uuid), more components than a request may carry. For clients, before they send it.
 */
export function layoutProblem(value: unknown): string | undefined {
  // The one-walk check first: a valid layout, the common case, costs no schema walk (spec §13's sizes are large).
  if (!isPlainLayout(value)) {
    // The checker generated from the Layout schema: a client's bundle holds no zod.
    const parsed = LayoutChecker.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.map(String).join('.');
      return `${where === '' ? 'the layout' : where}: ${issue.message}`;
    }
    value = parsed.data;
  }
  const layout = value as Layout;
  const duplicate = findDuplicateUuid(layout);
  if (duplicate !== undefined) {
    return (
      `the uuid "${duplicate}" appears twice in the layout; every component needs its own uuid ` +
      '(a copied or duplicated component, and each of its slot children, must be given a new one)'
    );
  }
  const count = countComponents(layout);
  if (count > LIMITS.maxLayoutComponents) {
    return `the layout holds ${count} components; a request may carry at most ${LIMITS.maxLayoutComponents}`;
  }
  return undefined;
}
