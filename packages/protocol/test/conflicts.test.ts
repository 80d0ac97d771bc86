// Co-editing (spec §16.2): an output that knows what it replaces is refused when the person changed that value.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  ApplyResult,
  applyOutputs,
  applyOutputsWithResults,
  type CanvasDocument,
  conflictResult,
  findComponent,
  findConflicts,
  Layout,
  LayoutError,
  layoutProblem,
  type ToolOutput,
} from '../src/index.js';
import { jsonEqual } from '../src/layout/conflicts.js';

const nested = Layout.parse(
  parse(readFileSync(new URL('../../../fixtures/layouts/nested.yaml', import.meta.url), 'utf8')),
);

function doc(): CanvasDocument {
  return { layout: structuredClone(nested), page: { title: 'Crumb & Co.' } };
}

/** The document after the person retyped hero-1's heading. */
function afterPersonEdit(heading = 'Fresh every day'): CanvasDocument {
  return applyOutputs(doc(), [
    { type: 'edit_components', call_id: 'person', component_updates: { 'hero-1': { heading } } },
  ]);
}

const agentEdit: ToolOutput = {
  type: 'edit_components',
  call_id: 'call-7',
  component_updates: { 'hero-1': { heading: 'Baked by hand', theme: 'dark' } },
  replaces: { 'hero-1': { heading: 'Crumb & Co.', theme: 'brand' } },
};

describe('outputs with replaces (spec §16.2)', () => {
  it('apply as usual while every replaced value still holds', () => {
    const after = applyOutputs(doc(), [agentEdit]);
    assert.deepEqual(findComponent(after.layout, 'hero-1')?.props.heading, 'Baked by hand');
  });

  it('refuse the whole edit, keeping the person’s text, and name the prop with both values', () => {
    const person = afterPersonEdit();
    const { document, results } = applyOutputsWithResults(person, [agentEdit]);

    assert.equal(findComponent(document.layout, 'hero-1')?.props.heading, 'Fresh every day');
    assert.equal(findComponent(document.layout, 'hero-1')?.props.theme, 'brand', 'no part of the output applied');
    assert.equal(results[0]?.status, 'rejected');
    assert.deepEqual(results[0]?.conflicts, [
      { uuid: 'hero-1', prop: 'heading', expected: 'Crumb & Co.', actual: 'Fresh every day' },
    ]);
    assert.match(results[0]!.reason!, /hero-1\.heading: the person changed it to "Fresh every day"/);
    assert.match(results[0]!.reason!, /expected "Crumb & Co\."/);
    assert.ok(ApplyResult.safeParse(results[0]).success, 'the result is a valid apply result');
  });

  it('throw a LayoutError with code conflict from applyOutputs, leaving the document as it was', () => {
    const person = afterPersonEdit();
    const before = structuredClone(person);
    assert.throws(
      () => applyOutputs(person, [agentEdit]),
      (error: unknown) => error instanceof LayoutError && error.code === 'conflict' && error.conflicts.length === 1,
    );
    assert.deepEqual(person, before);
  });

  it('treat a prop that is not set as null, and a cleared prop as a conflict', () => {
    const setsBody: ToolOutput = {
      type: 'edit_components',
      call_id: 'call-8',
      component_updates: { 'card-1': { body: 'Gooey.' } },
      replaces: { 'card-1': { body: null } },
    };
    assert.equal(findComponent(applyOutputs(doc(), [setsBody]).layout, 'card-1')?.props.body, 'Gooey.');

    const cleared = applyOutputs(doc(), [
      { type: 'edit_components', call_id: 'person', component_updates: { 'hero-1': { heading: null } } },
    ]);
    const { results } = applyOutputsWithResults(cleared, [agentEdit]);
    assert.deepEqual(results[0]?.conflicts?.[0], {
      uuid: 'hero-1',
      prop: 'heading',
      expected: 'Crumb & Co.',
      actual: null,
    });
    assert.match(results[0]!.reason!, /the person cleared it/);
  });

  it('compare JSON values whatever their key order', () => {
    assert.ok(jsonEqual({ src: 'a.png', alt: 'A' }, { alt: 'A', src: 'a.png' }));
    assert.ok(!jsonEqual({ src: 'a.png' }, { src: 'a.png', alt: '' }));
    assert.ok(!jsonEqual([1, 2], [2, 1]));
    assert.ok(!jsonEqual(null, 0));
  });

  it('refuse a page value the person changed', () => {
    const output: ToolOutput = {
      type: 'set_page_value',
      call_id: 'call-9',
      field: 'title',
      value: 'Crumb & Co. | Cookies',
      replaces: 'Crumb & Co.',
    };
    const person = { ...doc(), page: { title: 'My bakery' } };
    const { document, results } = applyOutputsWithResults(person, [output]);
    assert.equal(document.page.title, 'My bakery');
    assert.deepEqual(results[0]?.conflicts, [{ field: 'title', expected: 'Crumb & Co.', actual: 'My bakery' }]);
    assert.match(results[0]!.reason!, /the page's title: the person changed it to "My bakery"/);
  });

  it('apply an output without replaces as before (a revision 1.0 server)', () => {
    const { replaces: _, ...old } = agentEdit as Extract<ToolOutput, { type: 'edit_components' }>;
    const after = applyOutputs(afterPersonEdit(), [old]);
    assert.equal(findComponent(after.layout, 'hero-1')?.props.heading, 'Baked by hand');
  });

  it('let a host with its own store run the same check through findConflicts and conflictResult', () => {
    const store = new Map([['hero-1', { heading: 'Fresh every day', theme: 'brand' } as Record<string, string>]]);
    const conflicts = findConflicts(agentEdit, {
      prop: (uuid, prop) => store.get(uuid)?.[prop],
      pageValue: () => undefined,
    });
    assert.deepEqual(
      conflicts.map((conflict) => ('prop' in conflict ? conflict.prop : 'field' in conflict ? conflict.field : '')),
      ['heading'],
    );
    const result = conflictResult(agentEdit, conflicts);
    assert.equal(result.status, 'rejected');
    assert.equal(result.call_id, 'call-7');
  });

  it('keep a reason within the wire limit however long the values are', () => {
    const long = 'x'.repeat(5000);
    const conflicts = Array.from({ length: 9 }, (_, index) => ({
      uuid: `u${index}`,
      prop: 'body',
      expected: long,
      actual: long.toUpperCase(),
    }));
    const result = conflictResult(agentEdit, conflicts);
    assert.ok(result.reason!.length <= 2000);
    assert.match(result.reason!, /and 4 more/);
    assert.ok(ApplyResult.safeParse(result).success);
  });
});

describe('layoutProblem (spec §16.4)', () => {
  it('accepts a valid layout, and one with keys the schema ignores', () => {
    assert.equal(layoutProblem(nested), undefined);
    const extra = structuredClone(nested) as unknown as {
      regions: { content: { components: Array<Record<string, unknown>> } };
    };
    extra.regions.content.components[0]!.label = 'host-only';
    assert.equal(layoutProblem(extra), undefined);
  });

  it('names a uuid held twice, and says a copy needs a new one', () => {
    const copied = structuredClone(nested);
    copied.regions.content!.components.push(structuredClone(copied.regions.content!.components[1]!));
    assert.match(layoutProblem(copied)!, /the uuid "footer-1" appears twice .* must be given a new one/);
  });

  it('names the place of a shape problem', () => {
    assert.equal(
      layoutProblem({ regions: { content: { components: [{ uuid: 'a' }] } } })?.split(':')[0],
      'regions.content.components.0.component',
    );
    assert.match(layoutProblem(undefined)!, /^the layout: /);
  });
});
