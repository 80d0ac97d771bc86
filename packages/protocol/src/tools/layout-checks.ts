import type { Catalog } from '../config/catalog.js';
import { findComponent } from '../layout/layout-tree.js';
import type { ComponentNode, Layout } from '../wire/layout.js';
import { parseTarget } from '../wire/layout.js';
import { listNames } from './format.js';
import { catalogIndex } from './component-spec.js';
import { didYouMean } from './suggest.js';
import { closestUuids, type SuggestionBudget } from './uuid-suggestions.js';

/** One placement as the model asked for it. */
export interface PlacementRequest {
  target: string;
  placement: 'above' | 'below' | 'inside';
  reference_uuid?: string | undefined;
}

/** Where a uuid sits: the target string of the list that holds it. */
function targetHolding(layout: Layout, uuid: string): string | undefined {
  const search = (nodes: readonly ComponentNode[], target: string): string | undefined => {
    for (const node of nodes) {
      if (node.uuid === uuid) return target;
      for (const [slot, children] of Object.entries(node.slots ?? {})) {
        const found = search(children, `${node.uuid}/${slot}`);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const [region, { components }] of Object.entries(layout.regions)) {
    const found = search(components, region);
    if (found) return found;
  }
  return undefined;
}

/**
 * `no component with uuid x in the layout; did you mean y?`. Suggestions only while `budget` lasts: a call naming many
 * unknown uuids gets them for the first few (uuid-suggestions.ts bounds each search).
 */
export function unknownUuidMessage(layout: Layout, uuid: string, budget: SuggestionBudget): string {
  const close = budget.take() ? closestUuids(layout, uuid) : [];
  const hint = close.length ? `; did you mean ${close.map((match) => `\`${match}\``).join(' or ')}?` : '.';
  return `no component with uuid \`${uuid}\` in the layout${hint} Use the uuids of the current layout tree or of earlier results.`;
}

/**
 * Checks one placement against the layout it will apply to (spec §12): the target exists, the slot is one of the parent's,
 * the components are allowed in that slot, `inside` only on an empty target, `above`/`below` with a reference_uuid
 * that is in the target. `componentIds` are the catalog ids of what goes there. Returns the problems, each a sentence
 * that says what to do instead. `budget` bounds the "did you mean" searches of the call it is part of.
 */
export function checkPlacement(
  layout: Layout,
  catalog: Catalog,
  request: PlacementRequest,
  componentIds: readonly string[],
  where: string,
  budget: SuggestionBudget,
): string[] {
  const problems: string[] = [];
  const add = (message: string): void => {
    problems.push(`${where}: ${message}`);
  };
  const list = targetList(layout, catalog, request.target, componentIds, add, budget);
  if (list === undefined) return problems;
  if (request.placement === 'inside') {
    if (list.length > 0) {
      const last = list[list.length - 1]!;
      add(
        `target \`${request.target}\` is not empty (it holds ${list.length} component${list.length === 1 ? '' : 's'}); ` +
          '`inside` only fills an empty target. To add after the last one, use placement `below` with ' +
          `reference_uuid \`${last.uuid}\` (${last.component}).`,
      );
    }
    return problems;
  }
  const inTarget = list.map((node) => node.uuid);
  if (request.reference_uuid === undefined) {
    add(
      `placement \`${request.placement}\` needs a reference_uuid: the uuid of a component in target \`${request.target}\`` +
        (inTarget.length
          ? ` (there: ${listNames(inTarget)})`
          : '; the target is empty, so use placement `inside` instead'),
    );
    return problems;
  }
  if (!inTarget.includes(request.reference_uuid)) {
    const elsewhere = targetHolding(layout, request.reference_uuid);
    const where = elsewhere
      ? `; it is in \`${elsewhere}\`, so use that as the target`
      : `: ${unknownUuidMessage(layout, request.reference_uuid, budget)}`;
    add(`reference_uuid \`${request.reference_uuid}\` is not in target \`${request.target}\`${where}`);
  }
  return problems;
}

/**
 * The component list a placement target names, or undefined when there is none (the problem told through `add`):
 * a region of the page, or a slot of a component on it that its catalog definition has, with the components going
 * there checked against the slot's allowed ones (told through `add`, the list still returned).
 */
function targetList(
  layout: Layout,
  catalog: Catalog,
  target: string,
  componentIds: readonly string[],
  add: (message: string) => void,
  budget: SuggestionBudget,
): readonly ComponentNode[] | undefined {
  const parsed = parseTarget(target);
  if (parsed.kind === 'region') {
    const regions = Object.keys(layout.regions);
    if (!Object.hasOwn(layout.regions, parsed.region)) {
      add(
        `unknown target \`${target}\`: the page has no region \`${parsed.region}\`${didYouMean(parsed.region, regions) || '.'} ` +
          `Regions: ${listNames(regions)}; to place into a slot, write the target as "<parent_uuid>/<slot_name>".`,
      );
      return undefined;
    }
    return layout.regions[parsed.region]!.components;
  }
  const parent = findComponent(layout, parsed.parentUuid);
  if (!parent) {
    add(`unknown target \`${target}\`: ${unknownUuidMessage(layout, parsed.parentUuid, budget)}`);
    return undefined;
  }
  const definition = catalogIndex(catalog).get(parent.component);
  // The catalog says which slots exist; a layout node from a component outside the catalog falls back to its own.
  const slotNames = definition ? Object.keys(definition.slots) : Object.keys(parent.slots ?? {});
  if (!slotNames.includes(parsed.slot)) {
    const slotsNote = slotNames.length ? `Its slots are: ${slotNames.join(', ')}.` : 'It has no slots.';
    add(
      `unknown target \`${target}\`: ${parent.component} (${parent.uuid}) has no slot \`${parsed.slot}\`` +
        `${didYouMean(parsed.slot, slotNames) || '.'} ${slotsNote}`,
    );
    return undefined;
  }
  const allowed = definition?.slots[parsed.slot]?.allowed;
  if (allowed) {
    for (const id of componentIds) {
      if (!allowed.includes(id)) {
        add(
          `${id} is not allowed in slot \`${parsed.slot}\` of ${parent.component} (${parent.uuid}); ` +
            `allowed: ${allowed.join(', ')}`,
        );
      }
    }
  }
  return parent.slots?.[parsed.slot] ?? [];
}
