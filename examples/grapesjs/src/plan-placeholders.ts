// The agent's plan on the GrapesJS canvas (spec §20.4): the planned rows not built yet, drawn as placeholders after
// the page's last row. They are plain elements in the canvas frame's document, after GrapesJS's wrapper element, and
// never GrapesJS components: its undo manager, its HTML export, its storage and the layout the chat sends
// (getLayout) all read the component tree, so none of them meets a placeholder, and GrapesJS re-rendering the wrapper
// leaves them alone.
import type { ShownPlan } from '@canvas-ai/widget/loop';
import type { Editor } from 'grapesjs';

/** The class of the layer that holds the placeholders: one per frame document, after the wrapper. */
const PLAN_LAYER_CLASS = 'canvas-ai-plan';

/**
 * The layer's own style, which goes with it. While the layer is there, GrapesJS's wrapper ends at its last row instead
 * of filling the frame (GrapesJS gives it `min-height: 100vh`), so the placeholders follow the last built row.
 * `pointer-events: none`: a click or a drop goes to GrapesJS as if the layer were not there.
 */
const LAYER_STYLE = `
  [data-gjs-type="wrapper"]:has(~ .${PLAN_LAYER_CLASS}) { min-height: 0; }
  .${PLAN_LAYER_CLASS} { pointer-events: none; padding: 0 12px 12px; font: 14px/1.4 system-ui, sans-serif; }
  .${PLAN_LAYER_CLASS}__row {
    margin-top: 12px; padding: 16px; border: 2px dashed #9aa0a6; border-radius: 6px; color: #4a4f55;
    background: #f8f9fa;
  }
  .${PLAN_LAYER_CLASS}__row p { margin: 0; }
  .${PLAN_LAYER_CLASS}__number { font-weight: 600; }
  .${PLAN_LAYER_CLASS}__components { margin-top: 4px; font-size: 12px; color: #6b7075; }
`;

/** What the chat's `showPlan` and `clearPlan` call: draw the rows of a plan not built yet, or take them away. */
export interface PlanPlaceholders {
  show(plan: ShownPlan): void;
  clear(): void;
}

/** Placeholders for the plan shown in `editor`'s canvas, drawn again whenever GrapesJS renders a new frame body. */
export function planPlaceholders(editor: Editor): PlanPlaceholders {
  let shown: ShownPlan | undefined;
  const draw = (frame: Document | null = editor.Canvas.getDocument()): void => {
    frame?.querySelector(`.${PLAN_LAYER_CLASS}`)?.remove();
    if (shown && frame?.body && shown.built < shown.rows.length) frame.body.append(layerOf(frame, shown));
  };
  // A new frame document (GrapesJS rendered the canvas again) starts without the layer.
  editor.on('canvas:frame:load:body', ({ window }: { window: Window }) => draw(window.document));
  return {
    show(plan) {
      shown = plan;
      draw();
    },
    clear() {
      shown = undefined;
      draw();
    },
  };
}

/**
 * The layer for `plan`: a dashed box per row not built yet, numbered as in the plan, with its title and its
 * components. Hidden from screen readers: the chat's plan card already reads the plan out; these only show where
 * the rows will go.
 */
function layerOf(frame: Document, plan: ShownPlan): HTMLElement {
  const layer = element(frame, 'div', PLAN_LAYER_CLASS);
  layer.setAttribute('aria-hidden', 'true');
  layer.append(element(frame, 'style', '', LAYER_STYLE));
  plan.rows.slice(plan.built).forEach((row, index) => {
    const box = element(frame, 'div', `${PLAN_LAYER_CLASS}__row`);
    box.dataset.plannedRow = String(plan.built + index + 1);
    const title = element(frame, 'p', `${PLAN_LAYER_CLASS}__title`);
    // Text nodes only: a title is the model's plain text (spec §20.4), never markup.
    title.append(
      element(frame, 'span', `${PLAN_LAYER_CLASS}__number`, `Planned row ${plan.built + index + 1}`),
      ' ',
      row.title,
    );
    const names = row.components.map((id) => id.slice(id.lastIndexOf('.') + 1)).join(', ');
    box.append(title, element(frame, 'p', `${PLAN_LAYER_CLASS}__components`, names));
    layer.append(box);
  });
  return layer;
}

function element(frame: Document, tag: string, className: string, text?: string): HTMLElement {
  const created = frame.createElement(tag);
  if (className) created.className = className;
  if (text !== undefined) created.textContent = text;
  return created;
}
