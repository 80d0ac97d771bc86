import type { Catalog } from '../config/catalog.js';

/** What {@link describeCatalog} adapts to. */
export interface CatalogPromptOptions {
  /** The tools the model is offered this turn: the remove and move tools add how to use them. */
  tools?: readonly string[];
}

/**
 * The catalog summary injected into the agent's context on every hop (spec §12): id, name and description of every
 * component, plus the names of its slots so the model knows which components hold others. Props are left to
 * `get_component_details`, which the model calls on demand. When the model may move components, each slot that
 * accepts only some components names them, since a move is refused where the slot does not allow it.
 */
export function describeCatalog(catalog: Catalog, options: CatalogPromptOptions = {}): string {
  const tools = options.tools ?? [];
  const lines = [
    `Component catalog (${catalog.components.length} components). Call get_component_details for the props and ` +
      'slots of a component before you place or edit it.',
  ];
  const removes = tools.includes('remove_components');
  const moves = tools.includes('move_components');
  if (removes || moves) {
    const how = [
      removes ? 'take components off the page with remove_components (what is inside their slots goes with them)' : '',
      moves ? 'rearrange it with move_components, which keeps their uuids, props and content' : '',
    ].filter(Boolean);
    lines.push(`To change what is already on the page, ${how.join('; ')}: never place a copy and remove the original.`);
  }
  for (const component of catalog.components) {
    const slots = Object.entries(component.slots).map(([name, slot]) =>
      moves && slot.allowed ? `${name} (only ${slot.allowed.join(', ')})` : name,
    );
    const slotNote = slots.length ? ` Slots: ${slots.join(', ')}.` : '';
    lines.push(`- ${component.id} (${component.name}): ${component.description.trim()}${slotNote}`);
  }
  return lines.join('\n');
}
