import { html, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { repeat } from 'lit/directives/repeat.js';
import { findComponent, type CanvasDocument, type Props } from '@canvas-ai/protocol';
import { componentName } from './canvas-view.js';

/** What the inspector needs: the document, the selection, and the person's two edits. */
export interface InspectorViewState {
  document: CanvasDocument;
  selected: string | null;
  onEdit: (uuid: string, props: Props) => void;
  onRemove: (uuid: string) => void;
}

/**
 * The selected component's string props but the derived ones, one text input each, committed on change (Enter or leaving the field), and
 * a Remove button. The person edits the page here while the agent works; the next hop carries what they did.
 */
export function inspectorView(state: InspectorViewState): TemplateResult {
  const node = state.selected === null ? undefined : findComponent(state.document.layout, state.selected);
  if (!node) return html`<p class="inspector-empty">Click a component on the page to edit it.</p>`;
  // A derived prop is the editor's to compute (spec §10.1): shown on the page, not offered for editing.
  const derived = new Set(node.derived ?? []);
  const strings = Object.entries(node.props).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && !derived.has(entry[0]),
  );
  // Keyed by uuid: selecting another component gets fresh inputs, not the last one's half-typed text.
  return html`${keyed(
    node.uuid,
    html`<form class="inspector-form" @submit=${prevent}>
      <p class="inspector-title">${componentName(node)}</p>
      ${repeat(
        strings,
        ([prop]) => prop,
        ([prop, value]) => html`<label class="inspector-field">
          <span>${prop}</span>
          <input
            type="text"
            name=${prop}
            .value=${value}
            @change=${(event: Event) => state.onEdit(node.uuid, { [prop]: (event.target as HTMLInputElement).value })}
          />
        </label>`,
      )}
      <button
        type="button"
        class="inspector-remove"
        aria-label=${`Remove the selected ${componentName(node)}`}
        @click=${() => state.onRemove(node.uuid)}
      >
        Remove
      </button>
    </form>`,
  )}`;
}

function prevent(event: Event): void {
  event.preventDefault();
}
