import type { Catalog } from '../config/catalog.js';
import type { HopResponse } from '../wire/hop-response.js';
import type { ToolOutput } from '../wire/outputs.js';
import { errorMessage } from '../wire/errors.js';
import { collectPlacedUuids, placedNodes } from '../layout/placed-uuids.js';
import { collectPlacedComponentIds, resolvePlacedRefs } from './placed-refs.js';
import type { ExpectedOutput, ScenarioHop } from './scenario.js';

/**
 * The differences between a hop's response and what the scenario expects, one readable sentence each
 * ("hop 3: expected outputs [place_components call_2] but got []"); empty when the hop is as expected.
 * `placedUuids` are the uuids placed by the turn's EARLIER hops (`collectPlacedUuids` over their outputs, in order);
 * this response's own placements are added here, so `{{placed.N}}` may name a component placed in this hop.
 * `selected` resolves `{{selected}}`: the `context.selected_component` the turn was sent with. `catalog` gives the slot
 * order placed components are counted in (spec §15); without it, the outputs' key order.
 */
export function checkHop(
  expected: ScenarioHop,
  response: HopResponse,
  placedUuids: readonly string[],
  selected?: string | null,
  catalog?: Pick<Catalog, 'components'>,
): string[] {
  const prefix = `hop ${response.hop}: `;
  const mismatches: string[] = [];
  const differ = (what: string, want: unknown, got: unknown): void => {
    mismatches.push(`${prefix}expected ${what} ${show(want)} but got ${show(got)}`);
  };

  if (response.should_continue !== expected.should_continue) {
    differ('should_continue', expected.should_continue, response.should_continue);
  }

  mismatches.push(...checkOutputs(expected, response, placedUuids, selected, catalog));

  if (response.progress !== expected.progress) {
    const at = firstDifference(expected.progress, response.progress);
    mismatches.push(
      `${prefix}expected progress ${show(expected.progress)} but got ${show(response.progress)} (they differ from character ${at})`,
    );
  }

  const waiting = response.should_continue ? response.waiting : undefined;
  // Everything but `expires_at`, which no scenario can know, in the order the scenario writes it.
  const { expires_at: _when, ...gotWaiting } = waiting ?? { expires_at: '' };
  const got = waiting ? gotWaiting : undefined;
  if (show(got) !== show(expected.waiting)) differ('waiting', expected.waiting, got);

  const message = response.should_continue ? undefined : response.message;
  const finishReason = response.should_continue ? undefined : response.finish_reason;
  if (message !== expected.message) differ('message', expected.message, message);
  if (finishReason !== expected.finish_reason) differ('finish_reason', expected.finish_reason, finishReason);
  return mismatches;
}

/**
 * The outputs part of {@link checkHop}: the differences between a hop's outputs and the ones the scenario expects,
 * nothing about its narration or whether it ends the turn (the kit's tool checks judge this alone).
 */
export function checkOutputs(
  expected: Pick<ScenarioHop, 'outputs'>,
  response: HopResponse,
  placedUuids: readonly string[],
  selected?: string | null,
  catalog?: Pick<Catalog, 'components'>,
): string[] {
  const prefix = `hop ${response.hop}: `;
  const mismatches: string[] = [];
  const wantList = expected.outputs.map((output) => `${output.type} ${output.call_id}`);
  const gotList = response.outputs.map((output) => `${output.type} ${output.call_id}`);
  if (wantList.join('|') !== gotList.join('|')) {
    mismatches.push(`${prefix}expected outputs [${wantList.join(', ')}] but got [${gotList.join(', ')}]`);
  } else {
    const placed = [...placedUuids, ...collectPlacedUuids(response.outputs, catalog)];
    expected.outputs.forEach((want, index) => {
      for (const problem of compareOutput(want, response.outputs[index]!, placed, selected, catalog))
        mismatches.push(`${prefix}${problem}`);
    });
  }

  return mismatches;
}

/** The differences between one expected output and the actual output with the same type and call id. */
function compareOutput(
  want: ExpectedOutput,
  got: ToolOutput,
  placed: readonly string[],
  selected?: string | null,
  catalog?: Pick<Catalog, 'components'>,
): string[] {
  const problems: string[] = [];
  const about = `output ${got.call_id}: expected`;
  const resolve = (text: string): string => {
    try {
      return resolvePlacedRefs(text, placed, selected);
    } catch (error) {
      problems.push(`output ${got.call_id}: ${errorMessage(error)}`);
      return text;
    }
  };

  if (want.placed !== undefined) {
    const ids = collectPlacedComponentIds(got, catalog);
    if (ids.join('|') !== want.placed.join('|'))
      problems.push(`${about} placed [${want.placed.join(', ')}] but got [${ids.join(', ')}]`);
  }
  if (want.placed_props !== undefined) {
    const props = got.type === 'place_components' ? placedNodes([got], catalog).map((node) => node.props) : [];
    if (!sameJson(want.placed_props, props))
      problems.push(`${about} placed_props ${show(want.placed_props)} but got ${show(props)}`);
  }
  if (want.placed_derived !== undefined) {
    const nodes = got.type === 'place_components' ? placedNodes([got], catalog) : [];
    const derived = nodes.map((node) => node.derived ?? []);
    if (!sameJson(want.placed_derived, derived))
      problems.push(`${about} placed_derived ${show(want.placed_derived)} but got ${show(derived)}`);
    // A node without derived props carries no `derived` at all (spec §10.1), not an empty list.
    const empty = nodes.filter((node) => node.derived?.length === 0).map((node) => node.uuid);
    if (empty.length > 0)
      problems.push(`${about} placed ${empty.join(', ')} with an empty derived list instead of none`);
  }
  if (want.operations !== undefined) {
    const wantOps = want.operations.map((op) =>
      describeOperation(
        resolve(op.target),
        op.placement,
        op.reference_uuid && resolve(op.reference_uuid),
        op.uuids?.map(resolve),
      ),
    );
    const gotOps =
      got.type === 'place_components'
        ? got.operations.map((op) => describeOperation(op.target, op.placement, op.reference_uuid))
        : got.type === 'move_components'
          ? got.operations.map((op) => describeOperation(op.target, op.placement, op.reference_uuid, op.uuids))
          : [];
    if (wantOps.join('|') !== gotOps.join('|'))
      problems.push(`${about} operations [${wantOps.join(', ')}] but got [${gotOps.join(', ')}]`);
  }
  if (want.component_updates !== undefined) {
    const wantUpdates = Object.fromEntries(
      Object.entries(want.component_updates).map(([uuid, props]) => [resolve(uuid), props]),
    );
    const gotUpdates = got.type === 'edit_components' ? got.component_updates : undefined;
    if (!sameJson(wantUpdates, gotUpdates))
      problems.push(`${about} component_updates ${show(wantUpdates)} but got ${show(gotUpdates)}`);
  }
  if (want.uuids !== undefined) {
    const wantUuids = want.uuids.map(resolve);
    const gotUuids = got.type === 'remove_components' ? got.uuids : undefined;
    if (!sameJson(wantUuids, gotUuids)) problems.push(`${about} uuids ${show(wantUuids)} but got ${show(gotUuids)}`);
  }
  if (want.field !== undefined) {
    const field = got.type === 'set_page_value' ? got.field : undefined;
    if (field !== want.field) problems.push(`${about} field ${show(want.field)} but got ${show(field)}`);
  }
  if (want.value !== undefined) {
    const value = got.type === 'set_page_value' ? got.value : undefined;
    if (!sameJson(want.value, value)) problems.push(`${about} value ${show(want.value)} but got ${show(value)}`);
  }
  return problems;
}

function describeOperation(target: string, placement: string, reference?: string, moved?: readonly string[]): string {
  const where = reference === undefined ? `${placement} ${target}` : `${placement} ${reference} in ${target}`;
  return moved === undefined ? where : `${moved.join(' ')} ${where}`;
}

/** Equal as JSON, whatever the key order. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function firstDifference(a: string, b: string): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index += 1;
  return index;
}
