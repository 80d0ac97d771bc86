/**
 * Where components are on the page, as a person finds them ("the hero, row 1 of content"), never by uuid. A turn's
 * changes record where the turn left each component it touched, and an undo looks again afterwards, so what could
 * not be taken back is named by label and place even when it is no longer on the page (spec §17.2). Framework-free.
 */
import type { ComponentNode, Conflict, Layout, ToolOutput } from '@canvas-ai/protocol';

/** Where one component is, or was. */
export interface ComponentPlace {
  /** Its catalog id (`sdc.demo.hero`), which its label is read from. */
  component: string;
  /** The region its row is in. */
  region: string;
  /** The position of its row in the region, 1 for the first. */
  row: number;
  /** For a component inside another: the catalog id of its row's component. */
  within?: string | undefined;
  /** It was not on the page when the chat last looked (after an undo): `region` and `row` are where it was. */
  gone?: boolean | undefined;
}

/** Places by component uuid. */
export type ComponentPlaces = Record<string, ComponentPlace>;

/** Where each of `uuids` is in `layout`; a uuid not in it is left out. */
export function findPlaces(layout: Layout, uuids: Iterable<string>): ComponentPlaces {
  const wanted = new Set(uuids);
  const found = new Map<string, ComponentPlace>();
  if (wanted.size === 0) return {};
  for (const [region, { components }] of Object.entries(layout.regions)) {
    components.forEach((top, index) => {
      const stack: ComponentNode[] = [top];
      while (stack.length > 0) {
        const node = stack.pop()!;
        if (wanted.has(node.uuid))
          found.set(node.uuid, {
            component: node.component,
            region,
            row: index + 1,
            ...(node === top ? {} : { within: top.component }),
          });
        for (const children of Object.values(node.slots ?? {})) stack.push(...children);
      }
    });
  }
  // fromEntries defines every key as its own property, a uuid such as `__proto__` included.
  return Object.fromEntries(found);
}

/** The place of `uuid` in `places`, if known (own keys only). */
export function placeOf(places: ComponentPlaces | undefined, uuid: string): ComponentPlace | undefined {
  return places && Object.hasOwn(places, uuid) ? places[uuid] : undefined;
}

/** The components an output is about: those it places, edits, removes or moves. */
export function componentsOf(output: ToolOutput): string[] {
  switch (output.type) {
    case 'place_components':
      return output.operations.flatMap((operation) => operation.components.map((node) => node.uuid));
    case 'edit_components':
      return Object.keys(output.component_updates);
    case 'set_page_value':
      return [];
    case 'remove_components':
      return [...output.uuids];
    case 'move_components':
      return output.operations.flatMap((operation) => operation.uuids);
  }
}

/** Every component an output names: its own, its neighbours (`reference_uuid`) and the parents of its targets. */
export function uuidsNamedBy(output: ToolOutput): string[] {
  const named = componentsOf(output);
  if (output.type === 'place_components' || output.type === 'move_components') {
    for (const operation of output.operations) {
      if (operation.reference_uuid) named.push(operation.reference_uuid);
      const parent = targetParent(operation.target);
      if (parent !== undefined) named.push(parent);
    }
  }
  return named;
}

/** The components conflicts are about, and the parents of the places a moved one is in now (none for a page field). */
export function conflictComponents(conflicts: readonly Conflict[] | undefined): string[] {
  return (conflicts ?? []).flatMap((conflict) => {
    if (!('uuid' in conflict)) return [];
    const parent = 'actual_target' in conflict ? targetParent(conflict.actual_target) : undefined;
    return parent === undefined ? [conflict.uuid] : [conflict.uuid, parent];
  });
}

/** The uuid of the component whose slot a placement target is (`<uuid>/<slot>`); undefined for a region. */
export function targetParent(target: string): string | undefined {
  const slash = target.indexOf('/');
  return slash === -1 ? undefined : target.slice(0, slash);
}

/**
 * A readable name from a catalog id, for a component the host gave no label: its last segment, words split
 * (`sdc.demo.two_column` → `two column`, `HeroBlock` → `hero block`).
 */
export function readableName(component: string): string {
  const last = component.split(/[.:/]/).filter(Boolean).at(-1) ?? component;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.length > 0 ? words : component;
}
