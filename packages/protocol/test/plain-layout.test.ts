import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HopRequest, Layout, type ComponentNode } from '../src/index.js';
import { toErrorIssues } from '../src/parse/zod-issues.js';
import { parseHopRequest } from '../src/server.js';
import { parseHopRequestBytes } from '../src/parse/parse-hop-request.js';
import { runStepsNow } from '../src/steps/steps.js';
import { isPlainLayout } from '../src/layout/plain-layout.js';

/** A layout as plain JSON: the variants below reach into it by any path to break it, which no precise type allows. */
// biome-ignore lint/suspicious/noExplicitAny: see above; the schema under test is what checks these objects.
type LooseLayout = Record<string, any>;

/** A layout with every kind of node the schema allows: nested slots, an empty slot, every JSON prop type. */
function richLayout(): LooseLayout {
  const card = (uuid: string): ComponentNode => ({
    uuid,
    component: 'sdc.demo.card',
    props: { title: uuid, price: '$3', body: 'x' },
  });
  return {
    regions: {
      header: { components: [] },
      content: {
        components: [
          {
            uuid: 'section-1',
            component: 'sdc.demo.section',
            props: { heading: 'Ours', nested: { a: [1, -0.5, true, null, 'x', { b: [] }] }, empty: {} },
            slots: {
              content: [
                {
                  uuid: 'grid-1',
                  component: 'sdc.demo.grid',
                  props: { columns: 3, summary: '2 cards' },
                  slots: { items: [card('c:1'), card('c.2')] },
                  derived: ['summary'],
                },
              ],
              aside: [],
            },
          },
          { uuid: 'text_1', component: 'vendor:text-2', props: {} },
        ],
      },
      _footer: { components: [] },
    },
  };
}

/** One change to a valid layout, and whether the schema accepts the result (stripping, say) or refuses it. */
const variants: Array<{ name: string; change: (layout: LooseLayout) => void; schema: 'accepts' | 'refuses' }> = [
  { name: 'an unknown key on the layout', change: (l) => (l.version = 2), schema: 'accepts' },
  { name: 'an unknown key on a region', change: (l) => (l.regions.content.title = 'x'), schema: 'accepts' },
  {
    name: 'an unknown key on a node',
    change: (l) => (l.regions.content.components[1].label = 'x'),
    schema: 'accepts',
  },
  { name: 'a node without props', change: (l) => delete l.regions.content.components[1].props, schema: 'refuses' },
  { name: 'a node without uuid', change: (l) => delete l.regions.content.components[1].uuid, schema: 'refuses' },
  { name: 'an empty uuid', change: (l) => (l.regions.content.components[1].uuid = ''), schema: 'refuses' },
  { name: 'a uuid with a slash', change: (l) => (l.regions.content.components[1].uuid = 'a/b'), schema: 'refuses' },
  {
    name: 'a 129-character uuid',
    change: (l) => (l.regions.content.components[1].uuid = 'u'.repeat(129)),
    schema: 'refuses',
  },
  {
    name: 'a 201-character component id',
    change: (l) => (l.regions.content.components[1].component = 'c'.repeat(201)),
    schema: 'refuses',
  },
  { name: 'a numeric uuid', change: (l) => (l.regions.content.components[1].uuid = 7), schema: 'refuses' },
  {
    name: 'a region name starting with a digit',
    change: (l) => (l.regions['1st'] = { components: [] }),
    schema: 'refuses',
  },
  { name: 'a region without components', change: (l) => (l.regions.content = {}), schema: 'refuses' },
  { name: 'components that are not a list', change: (l) => (l.regions.content.components = {}), schema: 'refuses' },
  { name: 'props that are a list', change: (l) => (l.regions.content.components[1].props = []), schema: 'refuses' },
  { name: 'slots that are a list', change: (l) => (l.regions.content.components[0].slots = []), schema: 'refuses' },
  { name: 'slots set to null', change: (l) => (l.regions.content.components[0].slots = null), schema: 'refuses' },
  {
    name: 'a slot name with a space',
    change: (l) => (l.regions.content.components[0].slots['my slot'] = []),
    schema: 'refuses',
  },
  {
    name: 'a deep slot child without a component',
    change: (l) => delete l.regions.content.components[0].slots.content[0].slots.items[1].component,
    schema: 'refuses',
  },
  {
    name: 'a prop named constructor',
    change: (l) => (l.regions.content.components[1].props.constructor = 1),
    schema: 'refuses',
  },
  {
    name: 'a nested prop key named prototype',
    change: (l) => (l.regions.content.components[0].props.nested.prototype = 1),
    schema: 'refuses',
  },
  {
    name: 'an infinite number',
    change: (l) => (l.regions.content.components[1].props.n = Infinity),
    schema: 'refuses',
  },
  {
    name: 'NaN in a list',
    change: (l) => l.regions.content.components[0].props.nested.a.push(Number.NaN),
    schema: 'refuses',
  },
  {
    name: 'an undefined prop',
    change: (l) => (l.regions.content.components[1].props.u = undefined),
    schema: 'refuses',
  },
  { name: 'a Date prop', change: (l) => (l.regions.content.components[1].props.d = new Date(0)), schema: 'refuses' },
  {
    name: 'a class instance as props',
    change: (l) => (l.regions.content.components[1].props = new (class Props {})()),
    schema: 'refuses',
  },
  { name: 'regions that are a list', change: (l) => (l.regions = []), schema: 'refuses' },
  {
    name: 'derived that is not a list',
    change: (l) => (l.regions.content.components[1].derived = 'x'),
    schema: 'refuses',
  },
  { name: 'an empty derived name', change: (l) => (l.regions.content.components[1].derived = ['']), schema: 'refuses' },
  {
    name: 'a derived name of 201 characters',
    change: (l) => (l.regions.content.components[1].derived = ['x'.repeat(201)]),
    schema: 'refuses',
  },
  {
    name: 'a forbidden key as a derived name',
    change: (l) => (l.regions.content.components[1].derived = ['constructor']),
    schema: 'refuses',
  },
  {
    name: '101 derived names',
    change: (l) => (l.regions.content.components[1].derived = Array.from({ length: 101 }, (_, i) => `p${i}`)),
    schema: 'refuses',
  },
];

describe('isPlainLayout: the schema walk skipped only when the schema would return the layout unchanged', () => {
  it('vouches for a valid layout, and the schema returns it unchanged', () => {
    const layout = richLayout();
    assert.equal(isPlainLayout(layout), true);
    const parsed = Layout.safeParse(layout);
    assert.ok(parsed.success);
    assert.deepEqual(parsed.data, layout);
  });

  for (const variant of variants) {
    it(`leaves ${variant.name} to the schema, which ${variant.schema === 'accepts' ? 'strips it' : 'refuses it'}`, () => {
      const layout = richLayout();
      variant.change(layout);
      assert.equal(isPlainLayout(layout), false);
      const parsed = Layout.safeParse(layout);
      assert.equal(parsed.success, variant.schema === 'accepts');
      if (parsed.success) assert.notDeepEqual(parsed.data, layout);
    });
  }
});

describe('parseHopRequest with a layout the fast path vouches for', () => {
  const request = (layout: unknown, extra: Record<string, unknown> = {}) => ({
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 2,
    context: { current_layout: layout },
    ...extra,
  });

  it('returns the layout as given, and the rest with the schema’s defaults', () => {
    const layout = richLayout();
    const result = parseHopRequest(request(layout));
    assert.ok(result.success);
    assert.equal(result.data.context.current_layout, layout);
    assert.deepEqual(result.data.context.page, {});
    assert.equal(result.data.context.selected_component, null);
  });

  it('reports an error elsewhere in the request exactly as the schema does', () => {
    const result = parseHopRequest(request(richLayout(), { hop: 0 }));
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.equal(result.error.field, 'hop');
    }
  });

  it('still names the field of an invalid layout', () => {
    const layout = richLayout();
    layout.regions.content.components[0].slots.content[0].slots.items[1].uuid = 'bad uuid';
    const result = parseHopRequest(request(layout));
    assert.equal(result.success, false);
    if (!result.success)
      assert.equal(
        result.error.field,
        'context.current_layout.regions.content.components.0.slots.content.0.slots.items.1.uuid',
      );
  });

  it('strips unknown keys of a layout through the schema, as before', () => {
    const layout = richLayout();
    layout.regions.content.components[1].label = 'host data';
    const result = parseHopRequest(request(layout));
    assert.ok(result.success);
    assert.equal('label' in result.data.context.current_layout.regions.content!.components[1]!, false);
  });
});

// Security review 2, G3: a layout the fast path leaves is checked node by node in steps; the result is the schema's.
describe('parseHopRequest with a layout the fast path leaves: node by node, the schema’s result', () => {
  const request = (layout: unknown, extra: Record<string, unknown> = {}) => ({
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 2,
    context: { current_layout: layout, page: { title: 'T' } },
    ...extra,
  });

  for (const variant of variants) {
    it(`gives what the schema gives for ${variant.name}, alone and beside errors before and after the layout`, () => {
      for (const extra of [{}, { hop: 0 }, { apply_results: 'x' }, { hop: 0, apply_results: 'x' }]) {
        const layout = richLayout();
        variant.change(layout);
        const input = request(layout, extra);
        // As a value, and as the door's bytes (whose values and keys the byte scan checked before any schema),
        // against the schema's result for what each carries (JSON writes NaN as null, leaves undefined out).
        const text = JSON.stringify(input);
        for (const [carried, result] of [
          [input, parseHopRequest(input)],
          [JSON.parse(text), runStepsNow(parseHopRequestBytes(new TextEncoder().encode(text)))],
        ] as const) {
          const schema = HopRequest.safeParse(carried);
          assert.equal(result.success, schema.success, JSON.stringify(extra));
          if (result.success && schema.success) assert.deepEqual(result.data, schema.data);
          // A forbidden key is refused by the scan before any schema runs (an error without issues).
          const scanned =
            !result.success && result.error.issues === undefined && /not allowed/.test(result.error.message);
          if (!result.success && !schema.success && !scanned) {
            assert.deepEqual(result.error.issues, toErrorIssues(schema.error), JSON.stringify(extra));
          }
        }
      }
    });
  }
});
