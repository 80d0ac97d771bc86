import type { Catalog } from '../config/catalog.js';

/**
 * The catalog summary injected into the agent's context on every hop (spec §12): id, name and description of every
 * component, plus the names of its slots so the model knows which components hold others. Props are left to
 * `get_component_details`, which the model calls on demand.
 */
export function describeCatalog(catalog: Catalog): string {
  const lines = [
    `Component catalog (${catalog.components.length} components). Call get_component_details for the props and ` +
      'slots of a component before you place or edit it.',
  ];
  for (const component of catalog.components) {
    const slots = Object.keys(component.slots);
    const slotNote = slots.length ? ` Slots: ${slots.join(', ')}.` : '';
    lines.push(`- ${component.id} (${component.name}): ${component.description.trim()}${slotNote}`);
  }
  return lines.join('\n');
}
