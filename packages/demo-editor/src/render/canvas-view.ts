import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { CanvasDocument, ComponentNode, PlanRow } from '@canvas-ai/protocol';
import { componentViews, unknownView, type RenderChildren } from './component-views.js';

/** What the canvas needs besides the document. */
export interface CanvasViewState {
  document: CanvasDocument;
  selected: string | null;
  /** uuids to flash: just placed or edited. */
  highlighted: ReadonlySet<string>;
  onSelect: (uuid: string | null) => void;
  /** The person removes a top-level row. */
  onRemove: (uuid: string) => void;
  /**
   * The rows of the agent's plan not built yet (spec §20.4), drawn as placeholders after the rows of the first
   * region, where the page builder places them; `firstNumber` is the plan's number of the first of them (from 1).
   * Never part of the document.
   */
  planned?: { rows: readonly PlanRow[]; firstNumber: number } | undefined;
}

/** A component's short name for people: `sdc.demo.two_column` → `two column`. */
export function componentName(node: ComponentNode): string {
  return (node.component.split('.').at(-1) ?? node.component).replaceAll('_', ' ');
}

/**
 * The page as the visitor would see it: page title and description above, then every region's rows.
 * Each component is wrapped so it can be selected and highlighted (`data-uuid`, `data-component`); each top-level
 * row has a Remove button.
 */
export function canvasView(state: CanvasViewState): TemplateResult {
  const { document } = state;
  const renderNode = (node: ComponentNode): TemplateResult => {
    const view = componentViews[node.component] ?? unknownView;
    const classes = [
      'node',
      state.selected === node.uuid ? 'is-selected' : '',
      state.highlighted.has(node.uuid) ? 'is-highlighted' : '',
    ].join(' ');
    return html`<div
      class=${classes}
      data-uuid=${node.uuid}
      data-component=${node.component}
      @click=${(event: Event) => {
        event.stopPropagation();
        state.onSelect(node.uuid);
      }}
    >
      ${view(node.props, children, node)}
    </div>`;
  };
  const children: RenderChildren = (nodes, slot) =>
    nodes && nodes.length > 0
      ? html`${repeat(nodes, (node) => node.uuid, renderNode)}`
      : html`<div class="slot-empty">${slot}</div>`;

  const title = typeof document.page.title === 'string' ? document.page.title : '';
  const description = typeof document.page.description === 'string' ? document.page.description : '';
  const regions = Object.entries(document.layout.regions);
  const planned = state.planned?.rows ?? [];
  const empty = regions.every(([, region]) => region.components.length === 0) && planned.length === 0;
  return html`
    <header class="page-meta">
      <p class="page-meta__label">Page title</p>
      <h1 class="page-meta__title ${title ? '' : 'is-empty'}" data-field="title">${title || 'Untitled page'}</h1>
      <p class="page-meta__description ${description ? '' : 'is-empty'}" data-field="description">
        ${description || 'No description yet.'}
      </p>
    </header>
    <div class="page" @click=${() => state.onSelect(null)}>
      ${empty ? html`<p class="page-empty">This page is empty. Ask the page builder to build it.</p>` : nothing}
      ${regions.map(
        ([id, region]) => html`<div class="region" data-region=${id}>
          ${repeat(
            region.components,
            (node) => node.uuid,
            (node, index) => html`<div class="row" data-row=${node.uuid}>
              ${renderNode(node)}
              <div class="row-tools">
                <button
                  type="button"
                  class="row-remove"
                  aria-label=${`Remove ${componentName(node)} (row ${index + 1})`}
                  title="Remove this row"
                  @click=${(event: Event) => {
                    event.stopPropagation();
                    state.onRemove(node.uuid);
                  }}
                >
                  Remove
                </button>
              </div>
            </div>`,
          )}
          ${id === regions[0]?.[0] ? plannedRows(planned, state.planned?.firstNumber ?? 1) : nothing}
        </div>`,
      )}
    </div>
  `;
}

/** The placeholders of planned rows: each row's title and components, numbered as in the plan. */
function plannedRows(rows: readonly PlanRow[], firstNumber: number): TemplateResult {
  return html`${rows.map(
    (row, index) => html`<div class="planned-row" data-planned-row=${firstNumber + index}>
      <p class="planned-row__title">
        <span class="planned-row__number">Planned row ${firstNumber + index}</span>
        ${row.title}
      </p>
      <p class="planned-row__components">${row.components.map((id) => id.split('.').at(-1)!.replaceAll('_', ' ')).join(', ')}</p>
    </div>`,
  )}`;
}
