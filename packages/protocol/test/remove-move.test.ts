import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  Layout,
  LayoutError,
  applyOutputs,
  applyOutputsWithResults,
  findComponent,
  findConflicts,
  type CanvasDocument,
  type ComponentNode,
  type ToolOutput,
} from '../src/index.js';

// remove_components and move_components (spec §11.4, §11.5) in the shared reducer, on layouts/nested.yaml:
// header: hero-1; content: section-1 [content: columns-1 [left: text-1, right: grid-1 [items: card-1, card-2]]], footer-1.
const nested = Layout.parse(
  parse(readFileSync(new URL('../../../fixtures/layouts/nested.yaml', import.meta.url), 'utf8')),
);
const doc = (): CanvasDocument => ({ layout: structuredClone(nested), page: {} });

const remove = (uuids: string[], extra: Record<string, unknown> = {}): ToolOutput =>
  ({ type: 'remove_components', call_id: 'call-r', uuids, ...extra }) as ToolOutput;
const move = (operations: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): ToolOutput =>
  ({ type: 'move_components', call_id: 'call-m', operations, ...extra }) as ToolOutput;

const uuids = (nodes: readonly ComponentNode[] | undefined): string[] => (nodes ?? []).map((node) => node.uuid);
const content = (document: CanvasDocument): string[] => uuids(document.layout.regions.content?.components);

function refused(document: CanvasDocument, output: ToolOutput, code: string): void {
  const before = structuredClone(document);
  assert.throws(
    () => applyOutputs(document, [output]),
    (error: unknown) => error instanceof LayoutError && error.code === code,
  );
  assert.deepEqual(document, before);
}

describe('remove_components', () => {
  it('removes a component with its slot children, at any depth', () => {
    const after = applyOutputs(doc(), [remove(['columns-1'])]);
    assert.deepEqual(content(after), ['section-1', 'footer-1']);
    assert.deepEqual(uuids(findComponent(after.layout, 'section-1')!.slots!.content), []);
    for (const gone of ['columns-1', 'text-1', 'grid-1', 'card-1', 'card-2'])
      assert.equal(findComponent(after.layout, gone), undefined, gone);
  });

  it('removes several in order, from different lists', () => {
    const after = applyOutputs(doc(), [remove(['card-1', 'hero-1', 'footer-1'])]);
    assert.deepEqual(uuids(after.layout.regions.header!.components), []);
    assert.deepEqual(content(after), ['section-1']);
    assert.deepEqual(uuids(findComponent(after.layout, 'grid-1')!.slots!.items), ['card-2']);
  });

  it('refuses an unknown uuid, and a uuid inside one it already removed, applying nothing', () => {
    refused(doc(), remove(['card-1', 'nope']), 'unknown_uuid');
    refused(doc(), remove(['grid-1', 'card-1']), 'unknown_uuid');
  });

  it('is refused as a conflict when the person changed what it removes, and applies when nothing changed', () => {
    const seen = structuredClone(findComponent(nested, 'grid-1')!);
    const output = remove(['grid-1'], { replaces: { 'grid-1': seen } });
    assert.deepEqual(uuids(applyOutputs(doc(), [output]).layout.regions.content!.components), [
      'section-1',
      'footer-1',
    ]);

    const person = applyOutputs(doc(), [
      { type: 'edit_components', call_id: 'person', component_updates: { 'card-2': { title: 'Oat & raisin' } } },
    ]);
    const { results, document } = applyOutputsWithResults(person, [output]);
    assert.equal(results[0]!.status, 'rejected');
    assert.deepEqual(results[0]!.conflicts, [
      { uuid: 'card-2', prop: 'title', expected: 'Oatmeal raisin', actual: 'Oat & raisin' },
    ]);
    assert.ok(findComponent(document.layout, 'card-2'), "the person's card stays");
    assert.match(results[0]!.reason ?? '', /card-2\.title/);
  });

  it('reports a slot whose children the person changed as a conflict naming the slot', () => {
    const seen = structuredClone(findComponent(nested, 'grid-1')!);
    const person = applyOutputs(doc(), [remove(['card-1'])]);
    const conflicts = findConflicts(remove(['grid-1'], { replaces: { 'grid-1': seen } }), {
      prop: () => undefined,
      pageValue: () => undefined,
      component: (uuid) => findComponent(person.layout, uuid),
    });
    assert.deepEqual(conflicts, [
      { uuid: 'grid-1', slot: 'items', expected: ['card-1', 'card-2'], actual: ['card-2'] },
    ]);
  });

  it('is not compared by a host that cannot read its components (it removes as before)', () => {
    const output = remove(['grid-1'], { replaces: { 'grid-1': { uuid: 'grid-1', component: 'x', props: {} } } });
    assert.deepEqual(findConflicts(output, { prop: () => undefined, pageValue: () => undefined }), []);
  });
});

describe('move_components', () => {
  it('moves a top-level row above another, keeping uuid, props and slot children', () => {
    const after = applyOutputs(doc(), [
      move([{ uuids: ['footer-1'], target: 'content', placement: 'above', reference_uuid: 'section-1' }]),
    ]);
    assert.deepEqual(content(after), ['footer-1', 'section-1']);
    assert.deepEqual(findComponent(after.layout, 'section-1'), findComponent(nested, 'section-1'));
  });

  it('moves components out of a slot into another list, in the order given', () => {
    const after = applyOutputs(doc(), [
      move([{ uuids: ['card-2', 'card-1'], target: 'columns-1/left', placement: 'below', reference_uuid: 'text-1' }]),
    ]);
    assert.deepEqual(uuids(findComponent(after.layout, 'columns-1')!.slots!.left), ['text-1', 'card-2', 'card-1']);
    assert.deepEqual(uuids(findComponent(after.layout, 'grid-1')!.slots!.items), []);
  });

  it('moves inside another region, and within its own list', () => {
    const across = applyOutputs(doc(), [move([{ uuids: ['footer-1'], target: 'header', placement: 'inside' }])]);
    assert.deepEqual(uuids(across.layout.regions.header!.components), ['hero-1', 'footer-1']);
    const within = applyOutputs(doc(), [
      move([{ uuids: ['card-1'], target: 'grid-1/items', placement: 'below', reference_uuid: 'card-2' }]),
    ]);
    assert.deepEqual(uuids(findComponent(within.layout, 'grid-1')!.slots!.items), ['card-2', 'card-1']);
  });

  it('refuses moving a component into itself or into its own slots', () => {
    refused(
      doc(),
      move([{ uuids: ['section-1'], target: 'section-1/content', placement: 'inside' }]),
      'move_into_itself',
    );
    refused(doc(), move([{ uuids: ['section-1'], target: 'grid-1/items', placement: 'inside' }]), 'move_into_itself');
  });

  it('refuses an unknown uuid, target, slot or reference, and a reference that is being moved', () => {
    refused(doc(), move([{ uuids: ['nope'], target: 'content', placement: 'inside' }]), 'unknown_uuid');
    refused(doc(), move([{ uuids: ['card-1'], target: 'sidebar', placement: 'inside' }]), 'unknown_target');
    refused(doc(), move([{ uuids: ['card-1'], target: 'grid-1/nope', placement: 'inside' }]), 'unknown_slot');
    refused(
      doc(),
      move([{ uuids: ['card-1'], target: 'content', placement: 'above', reference_uuid: 'card-2' }]),
      'unknown_reference',
    );
    refused(
      doc(),
      move([{ uuids: ['card-1', 'card-2'], target: 'grid-1/items', placement: 'above', reference_uuid: 'card-2' }]),
      'unknown_reference',
    );
    refused(doc(), move([{ uuids: ['card-1'], target: 'content', placement: 'below' }]), 'missing_reference');
  });

  it('applies all operations or none', () => {
    refused(
      doc(),
      move([
        { uuids: ['card-1'], target: 'content', placement: 'inside' },
        { uuids: ['card-1'], target: 'nowhere', placement: 'inside' },
      ]),
      'unknown_target',
    );
  });

  it('is refused as a conflict when the person moved a component since, naming both targets', () => {
    const output = move([{ uuids: ['card-1'], target: 'content', placement: 'inside' }], {
      replaces: { 'card-1': 'grid-1/items' },
    });
    assert.equal(applyOutputsWithResults(doc(), [output]).results[0]!.status, 'applied');
    const person = applyOutputs(doc(), [move([{ uuids: ['card-1'], target: 'columns-1/left', placement: 'inside' }])]);
    const { results } = applyOutputsWithResults(person, [output]);
    assert.deepEqual(results[0]!.conflicts, [
      { uuid: 'card-1', expected_target: 'grid-1/items', actual_target: 'columns-1/left' },
    ]);
  });
});
