import { resolveTargetList } from '../layout/layout-tree.js';
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
  const lines: string[] = [];
  for (const [region, { components }] of Object.entries(layout.regions)) {
    lines.push(`region ${region}${components.length === 0 ? ' (empty)' : ''}`);
    writeNodes(lines, components, 1);
  }
  return lines.length === 0 ? '(the layout has no regions)' : lines.join('\n');
}

/** How many siblings {@link uuidTreeAround} shows on each side of what was placed. */
const AROUND_SIBLINGS = 3;

/**
 * The part of the layout a placement changed, for pages too large to repeat whole in every tool result: the target
 * list (`region <id>` or `slot <uuid>/<slot>`), the placed components with their slot children, and up to
 * {@link AROUND_SIBLINGS} neighbours on each side as one line each, the rest counted. Same line format as
 * {@link uuidTree}.
 */
export function uuidTreeAround(layout: Layout, target: string, placedUuids: ReadonlySet<string>): string {
  const list = resolveTargetList(layout, target);
  const placedAt = list.flatMap((node, index) => (placedUuids.has(node.uuid) ? [index] : []));
  const first = Math.max(0, (placedAt[0] ?? 0) - AROUND_SIBLINGS);
  const last = Math.min(list.length - 1, (placedAt.at(-1) ?? list.length - 1) + AROUND_SIBLINGS);
  const lines = [target.includes('/') ? `slot ${target}` : `region ${target}`];
  if (first > 0) lines.push(`  … ${first} earlier component${first === 1 ? '' : 's'}`);
  for (const node of list.slice(first, last + 1)) {
    if (placedUuids.has(node.uuid)) writeNodes(lines, [node], 1);
    else lines.push(`  ${node.uuid} ${node.component}`);
  }
  const after = list.length - 1 - last;
  if (after > 0) lines.push(`  … ${after} later component${after === 1 ? '' : 's'}`);
  return lines.join('\n');
}

function writeNodes(lines: string[], nodes: readonly ComponentNode[], depth: number): void {
  const indent = '  '.repeat(depth);
  for (const node of nodes) {
    lines.push(`${indent}${node.uuid} ${node.component}`);
    for (const [slot, children] of Object.entries(node.slots ?? {})) {
      lines.push(`${indent}  slot ${slot}${children.length === 0 ? ' (empty)' : ''}`);
      writeNodes(lines, children, depth + 2);
    }
  }
}
