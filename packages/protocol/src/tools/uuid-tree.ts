import { runStepsNow } from '../steps/steps.js';
import type { ComponentNode, Layout } from '../wire/layout.js';

/**
 * The layout as an indented uuid tree for the model (spec §12): every region, every component as `uuid component_id`,
 * every slot by name, empty ones marked. The model reads uuids and slot names here to write targets
 * (`<uuid>/<slot>`) and `reference_uuid`s. Example:
 *
 * ```
 * region content
 *   section-1 sdc.demo.section
 *     slot content
 *       text-1 sdc.demo.text
 * region footer (empty)
 * ```
 */
export function uuidTree(layout: Layout): string {
  return runStepsNow(uuidTreeSteps(layout));
}

/** Components written between two yields of {@link uuidTreeSteps}. */
const STEP_NODES = 2_048;

/** {@link uuidTree} as steps: it yields after every couple of thousand components, so a large page is no long step. */
export function* uuidTreeSteps(layout: Layout): Generator<undefined, string, undefined> {
  const lines: string[] = [];
  const written = { count: 0 };
  for (const [region, { components }] of Object.entries(layout.regions)) {
    lines.push(`region ${region}${components.length === 0 ? ' (empty)' : ''}`);
    yield* writeNodes(lines, components, 1, written);
  }
  return lines.length === 0 ? '(the layout has no regions)' : lines.join('\n');
}

function* writeNodes(
  lines: string[],
  nodes: readonly ComponentNode[],
  depth: number,
  written: { count: number },
): Generator<undefined, void, undefined> {
  const indent = '  '.repeat(depth);
  for (const node of nodes) {
    lines.push(`${indent}${node.uuid} ${node.component}`);
    written.count += 1;
    if (written.count % STEP_NODES === 0) yield;
    for (const [slot, children] of Object.entries(node.slots ?? {})) {
      lines.push(`${indent}  slot ${slot}${children.length === 0 ? ' (empty)' : ''}`);
      yield* writeNodes(lines, children, depth + 2, written);
    }
  }
}
