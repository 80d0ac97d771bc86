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
  type CanvasDocument,
  type ComponentNode,
  type ToolOutput,
} from '../src/index.js';

const nested = Layout.parse(
  parse(readFileSync(new URL('../../../fixtures/layouts/nested.yaml', import.meta.url), 'utf8')),
);

function doc(layout: Layout = nested): CanvasDocument {
  return { layout, page: { title: 'Old title' } };
}

function text(uuid: string, body = uuid): ComponentNode {
  return { uuid, component: 'sdc.demo.text', props: { body } };
}

function place(operation: Record<string, unknown>, callId = 'call-1'): ToolOutput {
  return { type: 'place_components', call_id: callId, operations: [operation] } as ToolOutput;
}

function uuidsOf(nodes: readonly ComponentNode[]): string[] {
  return nodes.map((node) => node.uuid);
}

/** Asserts that applying throws a LayoutError with this code and leaves the document deep-equal to a snapshot. */
function assertRefused(document: CanvasDocument, outputs: ToolOutput[], code: string): void {
  const before = structuredClone(document);
  assert.throws(
    () => applyOutputs(document, outputs),
    (error: unknown) => error instanceof LayoutError && error.code === code,
  );
  assert.deepEqual(document, before);
}

describe('applyOutputs: place_components', () => {
  it('places inside an empty region', () => {
    const result = applyOutputs(doc({ regions: { content: { components: [] } } }), [
      place({ target: 'content', placement: 'inside', components: [text('a')] }),
    ]);
    assert.deepEqual(uuidsOf(result.layout.regions.content!.components), ['a']);
  });

  it('appends inside a non-empty region, after the existing components', () => {
    const result = applyOutputs(doc(), [
      place({ target: 'content', placement: 'inside', components: [text('a'), text('b')] }),
    ]);
    assert.deepEqual(uuidsOf(result.layout.regions.content!.components), ['section-1', 'footer-1', 'a', 'b']);
  });

  it('places above a reference component', () => {
    const result = applyOutputs(doc(), [
      place({ target: 'content', placement: 'above', reference_uuid: 'footer-1', components: [text('a')] }),
    ]);
    assert.deepEqual(uuidsOf(result.layout.regions.content!.components), ['section-1', 'a', 'footer-1']);
  });

  it('places below a reference component', () => {
    const result = applyOutputs(doc(), [
      place({ target: 'content', placement: 'below', reference_uuid: 'section-1', components: [text('a'), text('b')] }),
    ]);
    assert.deepEqual(uuidsOf(result.layout.regions.content!.components), ['section-1', 'a', 'b', 'footer-1']);
  });

  it('places into a slot three levels deep', () => {
    const result = applyOutputs(doc(), [
      place({
        target: 'grid-1/items',
        placement: 'below',
        reference_uuid: 'card-1',
        components: [{ uuid: 'card-3', component: 'sdc.demo.card', props: { title: 'Snickerdoodle' } }],
      }),
    ]);
    const grid = findComponent(result.layout, 'grid-1')!;
    assert.deepEqual(uuidsOf(grid.slots!.items!), ['card-1', 'card-3', 'card-2']);
  });

  it('places a component with nested slot children, and a later operation targets its slot', () => {
    const section: ComponentNode = {
      uuid: 'new-section',
      component: 'sdc.demo.section',
      props: { heading: 'Flavours' },
      slots: {
        content: [{ uuid: 'new-grid', component: 'sdc.demo.grid', props: { columns: 3 }, slots: { items: [] } }],
      },
    };
    const output: ToolOutput = {
      type: 'place_components',
      call_id: 'call-1',
      operations: [
        { target: 'content', placement: 'below', reference_uuid: 'section-1', components: [section] },
        {
          target: 'new-grid/items',
          placement: 'inside',
          components: [{ uuid: 'c1', component: 'sdc.demo.card', props: { title: 'A' } }],
        },
      ],
    };
    const result = applyOutputs(doc(), [output]);
    assert.deepEqual(uuidsOf(findComponent(result.layout, 'new-grid')!.slots!.items!), ['c1']);
    assert.deepEqual(uuidsOf(result.layout.regions.content!.components), ['section-1', 'new-section', 'footer-1']);
  });

  it('places into another region', () => {
    const result = applyOutputs(doc(), [
      place({ target: 'header', placement: 'below', reference_uuid: 'hero-1', components: [text('a')] }),
    ]);
    assert.deepEqual(uuidsOf(result.layout.regions.header!.components), ['hero-1', 'a']);
  });
});

describe('applyOutputs: edit_components and set_page_value', () => {
  it('changes only the named props of each component, at any depth', () => {
    const result = applyOutputs(doc(), [
      {
        type: 'edit_components',
        call_id: 'e1',
        component_updates: { 'card-2': { title: 'Oat & raisin' }, 'hero-1': { theme: 'dark' } },
      },
    ]);
    assert.deepEqual(findComponent(result.layout, 'card-2')!.props, { title: 'Oat & raisin', price: '$3.00' });
    assert.equal(findComponent(result.layout, 'hero-1')!.props.theme, 'dark');
    assert.equal(findComponent(result.layout, 'hero-1')!.props.heading, 'Crumb & Co.');
  });

  it('keeps both edits when one edited component holds another, in either order (one walk finds both)', () => {
    for (const order of [
      ['section-1', 'card-1'],
      ['card-1', 'section-1'],
    ]) {
      const updates: Record<string, Record<string, string>> = {
        'section-1': { heading: 'Our ovens' },
        'card-1': { title: 'Double chocolate' },
      };
      const result = applyOutputs(doc(), [
        {
          type: 'edit_components',
          call_id: 'e1',
          component_updates: Object.fromEntries(order.map((uuid) => [uuid, updates[uuid]!])),
        },
      ]);
      assert.equal(findComponent(result.layout, 'section-1')!.props.heading, 'Our ovens', order.join(' then '));
      assert.equal(findComponent(result.layout, 'card-1')!.props.title, 'Double chocolate', order.join(' then '));
    }
  });

  it('sets a page field beside the layout', () => {
    const result = applyOutputs(doc(), [
      { type: 'set_page_value', call_id: 's1', field: 'description', value: 'Cookies.' },
    ]);
    assert.deepEqual(result.page, { title: 'Old title', description: 'Cookies.' });
    assert.equal(result.layout, nested, 'the layout is shared, not copied, when only the page changes');
  });

  it('applies a list in order: an edit may target a component placed earlier in the list', () => {
    const result = applyOutputs(doc(), [
      place({ target: 'content', placement: 'inside', components: [text('a', 'first')] }),
      { type: 'edit_components', call_id: 'e1', component_updates: { a: { body: 'second' } } },
    ]);
    assert.equal(findComponent(result.layout, 'a')!.props.body, 'second');
  });
});

describe('applyOutputs: purity', () => {
  it('never changes its input and shares untouched subtrees', () => {
    const input = doc();
    const before = structuredClone(input);
    const result = applyOutputs(input, [place({ target: 'header', placement: 'inside', components: [text('a')] })]);
    assert.deepEqual(input, before);
    assert.notEqual(result.layout.regions.header, input.layout.regions.header);
    assert.equal(result.layout.regions.content, input.layout.regions.content);
  });

  it('does not alias or freeze the output it was given', () => {
    const node = text('a');
    const output = place({ target: 'content', placement: 'inside', components: [node] });
    const result = applyOutputs(doc(), [output]);
    assert.equal(Object.isFrozen(node), false);
    assert.notEqual(findComponent(result.layout, 'a'), node);
  });
});

describe('applyOutputs: impossible operations raise a typed error and change nothing', () => {
  it('unknown region', () =>
    assertRefused(
      doc(),
      [place({ target: 'sidebar', placement: 'inside', components: [text('a')] })],
      'unknown_target',
    ));
  it('unknown parent uuid in a slot target', () =>
    assertRefused(
      doc(),
      [place({ target: 'ghost/content', placement: 'inside', components: [text('a')] })],
      'unknown_target',
    ));
  it('unknown slot of a known parent', () =>
    assertRefused(
      doc(),
      [place({ target: 'section-1/sidebar', placement: 'inside', components: [text('a')] })],
      'unknown_slot',
    ));
  it('a slot target on a component without slots', () =>
    assertRefused(
      doc(),
      [place({ target: 'hero-1/content', placement: 'inside', components: [text('a')] })],
      'unknown_slot',
    ));
  it('unknown reference uuid', () =>
    assertRefused(
      doc(),
      [place({ target: 'content', placement: 'below', reference_uuid: 'ghost', components: [text('a')] })],
      'unknown_reference',
    ));
  it('a reference uuid that exists, but in another target', () =>
    assertRefused(
      doc(),
      [place({ target: 'content', placement: 'below', reference_uuid: 'card-1', components: [text('a')] })],
      'unknown_reference',
    ));
  it('above/below without a reference uuid', () =>
    assertRefused(
      doc(),
      [place({ target: 'content', placement: 'above', components: [text('a')] })],
      'missing_reference',
    ));
  it('a uuid already in the layout', () =>
    assertRefused(
      doc(),
      [place({ target: 'content', placement: 'inside', components: [text('card-2')] })],
      'duplicate_uuid',
    ));
  it('the same new uuid twice within one placement', () =>
    assertRefused(
      doc(),
      [place({ target: 'content', placement: 'inside', components: [text('n'), text('n')] })],
      'duplicate_uuid',
    ));
  it('a duplicate uuid hidden in a nested slot child', () =>
    assertRefused(
      doc(),
      [
        place({
          target: 'content',
          placement: 'inside',
          components: [{ uuid: 'x', component: 'sdc.demo.section', props: {}, slots: { content: [text('footer-1')] } }],
        }),
      ],
      'duplicate_uuid',
    ));
  it('an edit of an unknown uuid', () =>
    assertRefused(
      doc(),
      [
        {
          type: 'edit_components',
          call_id: 'e',
          component_updates: { 'card-1': { title: 'ok' }, ghost: { title: 'x' } },
        },
      ],
      'unknown_uuid',
    ));
  it('a failing second operation of one output applies neither operation', () => {
    const output: ToolOutput = {
      type: 'place_components',
      call_id: 'call-1',
      operations: [
        { target: 'content', placement: 'inside', components: [text('a')] },
        { target: 'nowhere', placement: 'inside', components: [text('b')] },
      ],
    };
    assertRefused(doc(), [output], 'unknown_target');
  });
  it('a failing third output of a list applies none of the list', () =>
    assertRefused(
      doc(),
      [
        place({ target: 'content', placement: 'inside', components: [text('a')] }),
        { type: 'set_page_value', call_id: 's', field: 'title', value: 'New' },
        place({ target: 'content', placement: 'inside', components: [text('a')] }, 'call-3'),
      ],
      'duplicate_uuid',
    ));
  it('names the failing call', () => {
    assert.throws(
      () =>
        applyOutputs(doc(), [place({ target: 'nowhere', placement: 'inside', components: [text('a')] }, 'call-42')]),
      (error: unknown) => error instanceof LayoutError && error.callId === 'call-42' && /nowhere/.test(error.message),
    );
  });
});

describe('applyOutputsWithResults', () => {
  it('applies what it can and reports each output, the way a host answers apply_results', () => {
    const { document, results } = applyOutputsWithResults(doc(), [
      place({ target: 'content', placement: 'inside', components: [text('a')] }, 'c1'),
      place({ target: 'nowhere', placement: 'inside', components: [text('b')] }, 'c2'),
      { type: 'set_page_value', call_id: 'c3', field: 'title', value: 'New' },
    ]);
    assert.deepEqual(
      results.map((r) => [r.call_id, r.status]),
      [
        ['c1', 'applied'],
        ['c2', 'rejected'],
        ['c3', 'applied'],
      ],
    );
    assert.match(results[1]!.reason ?? '', /nowhere/);
    assert.ok(findComponent(document.layout, 'a'));
    assert.equal(findComponent(document.layout, 'b'), undefined);
    assert.equal(document.page.title, 'New');
  });
});
