import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import {
  Layout,
  ToolOutput,
  applyOutputs,
  applyOutputsWithResults,
  findComponent,
  walkLayout,
  type CanvasDocument,
  type ComponentNode,
  type JsonValue,
} from '../src/index.js';

// The inverse of every output (spec §17.1): applied to the document an output left, it gives back the document before
// it; and undoing after the person changed something refuses exactly that part (spec §17.2).
const nested = Layout.parse(
  parse(readFileSync(new URL('../../../fixtures/layouts/nested.yaml', import.meta.url), 'utf8')),
);
const doc = (): CanvasDocument => ({ layout: structuredClone(nested), page: { title: 'Crumb & Co.' } });

/** Applies `outputs`, then their inverse to the result, and returns the inverse and what it gave back. */
function roundTrip(document: CanvasDocument, outputs: ToolOutput[]) {
  const applied = applyOutputsWithResults(document, outputs);
  assert.deepEqual(
    applied.results.map((result) => result.status),
    outputs.map(() => 'applied'),
  );
  const undone = applyOutputsWithResults(applied.document, applied.inverse);
  assert.deepEqual(
    undone.results.map((result) => result.status),
    applied.inverse.map(() => 'applied'),
    JSON.stringify(undone.results),
  );
  return { applied, undone };
}

describe('the inverse of each output type', () => {
  it('place_components: a removal of what it placed, each only as it was placed', () => {
    const card: ComponentNode = { uuid: 'card-3', component: 'sdc.demo.card', props: { title: 'Peanut butter' } };
    const section: ComponentNode = {
      uuid: 'section-2',
      component: 'sdc.demo.section',
      props: { heading: 'More' },
      slots: { content: [] },
    };
    const output: ToolOutput = {
      type: 'place_components',
      call_id: 'call-1',
      operations: [
        { target: 'grid-1/items', placement: 'below', reference_uuid: 'card-2', components: [card] },
        { target: 'content', placement: 'inside', components: [section] },
        {
          target: 'section-2/content',
          placement: 'inside',
          components: [{ uuid: 'text-9', component: 'sdc.demo.text', props: { body: 'x' } }],
        },
      ],
    };
    const { applied, undone } = roundTrip(doc(), [output]);
    // text-9 went into section-2, placed by the same output: removing section-2 takes it along.
    assert.deepEqual(applied.inverse, [
      {
        type: 'remove_components',
        call_id: 'call-1',
        uuids: ['section-2', 'card-3'],
        replaces: {
          'section-2': findComponent(applied.document.layout, 'section-2'),
          'card-3': findComponent(applied.document.layout, 'card-3'),
        },
      },
    ]);
    assert.deepEqual(undone.document, doc());
  });

  it('edit_components: the old values back, replacing the new ones, and a prop that was not set unset again', () => {
    const output: ToolOutput = {
      type: 'edit_components',
      call_id: 'call-2',
      component_updates: { 'card-1': { title: 'Gooey', body: 'New text' } },
      replaces: { 'card-1': { title: 'Chocolate chip', body: null } },
    };
    const { applied, undone } = roundTrip(doc(), [output]);
    assert.deepEqual(applied.inverse, [
      {
        type: 'edit_components',
        call_id: 'call-2',
        component_updates: { 'card-1': { title: 'Chocolate chip', body: null } },
        replaces: { 'card-1': { title: 'Gooey', body: 'New text' } },
        unset: { 'card-1': ['body'] },
      },
    ]);
    assert.equal(Object.hasOwn(findComponent(undone.document.layout, 'card-1')!.props, 'body'), false);
    assert.deepEqual(undone.document, doc());
  });

  it('set_page_value: the old value back, or the field unset when it had none', () => {
    const { applied, undone } = roundTrip(doc(), [
      { type: 'set_page_value', call_id: 'call-3', field: 'title', value: 'New', replaces: 'Crumb & Co.' },
      { type: 'set_page_value', call_id: 'call-4', field: 'description', value: 'Cookies', replaces: null },
    ]);
    assert.deepEqual(applied.inverse, [
      {
        type: 'set_page_value',
        call_id: 'call-4',
        field: 'description',
        value: null,
        replaces: 'Cookies',
        unset: true,
      },
      { type: 'set_page_value', call_id: 'call-3', field: 'title', value: 'Crumb & Co.', replaces: 'New' },
    ]);
    assert.deepEqual(undone.document, doc());
  });

  it('remove_components: each component placed back where it was, next to the neighbour it had', () => {
    const { applied, undone } = roundTrip(doc(), [
      { type: 'remove_components', call_id: 'call-5', uuids: ['card-1', 'footer-1', 'hero-1'] },
    ]);
    const [inverse] = applied.inverse;
    assert.equal(inverse?.type, 'place_components');
    assert.deepEqual(
      inverse.type === 'place_components'
        ? inverse.operations.map(({ target, placement, reference_uuid }) => [target, placement, reference_uuid])
        : [],
      [
        ['header', 'inside', undefined],
        ['content', 'below', 'section-1'],
        ['grid-1/items', 'above', 'card-2'],
      ],
    );
    assert.deepEqual(undone.document, doc());
  });

  it('move_components: each component moved back, and only while it is where the move left it', () => {
    const { applied, undone } = roundTrip(doc(), [
      {
        type: 'move_components',
        call_id: 'call-6',
        operations: [
          { uuids: ['card-2', 'text-1'], target: 'content', placement: 'above', reference_uuid: 'section-1' },
          { uuids: ['footer-1'], target: 'header', placement: 'above', reference_uuid: 'hero-1' },
        ],
      },
    ]);
    const [inverse] = applied.inverse;
    assert.deepEqual(inverse?.type === 'move_components' ? inverse.replaces : undefined, {
      'card-2': 'content',
      'text-1': 'content',
      'footer-1': 'header',
    });
    assert.deepEqual(undone.document, doc());
  });

  it('an inverse of an inverse does the output again', () => {
    const output: ToolOutput = {
      type: 'edit_components',
      call_id: 'call-7',
      component_updates: { 'hero-1': { heading: 'Hello' } },
    };
    const once = applyOutputsWithResults(doc(), [output]);
    const back = applyOutputsWithResults(once.document, once.inverse);
    const again = applyOutputsWithResults(back.document, back.inverse);
    assert.deepEqual(again.document, once.document);
  });

  it('only applied outputs have an inverse: a rejected one has none', () => {
    const { results, inverse } = applyOutputsWithResults(doc(), [
      { type: 'remove_components', call_id: 'gone', uuids: ['nope'] },
      { type: 'set_page_value', call_id: 'ok', field: 'title', value: 'T' },
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'applied'],
    );
    assert.deepEqual(
      inverse.map((output) => output.call_id),
      ['ok'],
    );
  });
});

describe('undo after the person edited the page (spec §17.2)', () => {
  /** The agent's turn: a new card, an edited heading and a new page title. */
  const turn: ToolOutput[] = [
    {
      type: 'place_components',
      call_id: 'place',
      operations: [
        {
          target: 'grid-1/items',
          placement: 'below',
          reference_uuid: 'card-2',
          components: [{ uuid: 'card-3', component: 'sdc.demo.card', props: { title: 'Peanut butter' } }],
        },
      ],
    },
    { type: 'edit_components', call_id: 'edit', component_updates: { 'hero-1': { heading: 'Warm cookies' } } },
    { type: 'set_page_value', call_id: 'title', field: 'title', value: 'Cookies!' },
  ];

  it("keeps the person's later edit and reports the part it could not take back", () => {
    const agent = applyOutputsWithResults(doc(), turn);
    const person = applyOutputs(agent.document, [
      { type: 'edit_components', call_id: 'person', component_updates: { 'hero-1': { heading: 'Mine' } } },
    ]);
    const undo = applyOutputsWithResults(person, agent.inverse);
    const byCall = Object.fromEntries(undo.results.map((result) => [result.call_id, result]));
    assert.equal(byCall.edit?.status, 'rejected');
    assert.deepEqual(byCall.edit?.conflicts, [
      { uuid: 'hero-1', prop: 'heading', expected: 'Warm cookies', actual: 'Mine' },
    ]);
    assert.equal(byCall.place?.status, 'applied');
    assert.equal(byCall.title?.status, 'applied');
    assert.equal(findComponent(undo.document.layout, 'hero-1')!.props.heading, 'Mine', "the person's heading stays");
    assert.equal(findComponent(undo.document.layout, 'card-3'), undefined, "the agent's card is gone");
    assert.equal(undo.document.page.title, 'Crumb & Co.');
  });

  it("keeps a component the agent placed when the person edited it since, with the person's text", () => {
    const agent = applyOutputsWithResults(doc(), turn);
    const person = applyOutputs(agent.document, [
      { type: 'edit_components', call_id: 'person', component_updates: { 'card-3': { price: '$2' } } },
    ]);
    const undo = applyOutputsWithResults(person, agent.inverse);
    const place = undo.results.find((result) => result.call_id === 'place')!;
    assert.equal(place.status, 'rejected');
    assert.deepEqual(place.conflicts, [{ uuid: 'card-3', prop: 'price', expected: null, actual: '$2' }]);
    assert.equal(findComponent(undo.document.layout, 'card-3')!.props.price, '$2');
  });

  it('does not move a component back that the person moved elsewhere since', () => {
    const agent = applyOutputsWithResults(doc(), [
      {
        type: 'move_components',
        call_id: 'move',
        operations: [{ uuids: ['card-1'], target: 'content', placement: 'inside' }],
      },
    ]);
    const person = applyOutputs(agent.document, [
      {
        type: 'move_components',
        call_id: 'person',
        operations: [{ uuids: ['card-1'], target: 'header', placement: 'inside' }],
      },
    ]);
    const undo = applyOutputsWithResults(person, agent.inverse);
    assert.deepEqual(undo.results[0]?.conflicts, [
      { uuid: 'card-1', expected_target: 'content', actual_target: 'header' },
    ]);
    assert.deepEqual(
      undo.document.layout.regions.header!.components.map((node) => node.uuid),
      ['hero-1', 'card-1'],
    );
  });

  it('cannot put a removed component back once the person removed the neighbour it goes next to: it says so', () => {
    const agent = applyOutputsWithResults(doc(), [{ type: 'remove_components', call_id: 'remove', uuids: ['card-1'] }]);
    const person = applyOutputs(agent.document, [{ type: 'remove_components', call_id: 'person', uuids: ['card-2'] }]);
    const undo = applyOutputsWithResults(person, agent.inverse);
    assert.equal(undo.results[0]?.status, 'rejected');
    assert.match(undo.results[0]?.reason ?? '', /card-2/);
  });
});

// ── Property: apply random outputs to random layouts, then their inverses: the original document comes back. ──

const SLOTS = ['a', 'b'];

/** A random layout: up to three regions, components nested up to three levels, each with slots `a` and `b`. */
const layoutArbitrary = fc
  .array(fc.array(fc.nat({ max: 3 }), { maxLength: 4 }), { minLength: 1, maxLength: 3 })
  .map((regions) => {
    let next = 0;
    const node = (depth: number, width: number): ComponentNode => {
      next += 1;
      const uuid = `n${next}`;
      const slots = Object.fromEntries(
        SLOTS.map((slot) => [
          slot,
          depth >= 2 ? [] : Array.from({ length: (width + depth) % 3 }, () => node(depth + 1, width + 1)),
        ]),
      );
      return { uuid, component: 'c', props: { label: uuid }, slots };
    };
    return {
      regions: Object.fromEntries(
        regions.map((widths, index) => [`r${index}`, { components: widths.map((width) => node(0, width)) }]),
      ),
    } as Layout;
  });

/** One random intent; {@link outputFor} turns it into an output that makes sense for the document at hand. */
const intentArbitrary = fc.record({
  kind: fc.constantFrom('place', 'edit', 'page', 'remove', 'move'),
  pick: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
  placement: fc.constantFrom('above', 'below', 'inside'),
  value: fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.integer(),
    fc.constant(null),
    fc.boolean(),
  ) as fc.Arbitrary<JsonValue>,
  prop: fc.constantFrom('label', 'extra', 'other'),
});
type Intent = typeof intentArbitrary extends fc.Arbitrary<infer T> ? T : never;

function targetsOf(layout: Layout): Array<{ target: string; list: ComponentNode[] }> {
  const targets = Object.entries(layout.regions).map(([target, region]) => ({ target, list: region.components }));
  walkLayout(layout, (node) => {
    for (const [slot, list] of Object.entries(node.slots ?? {})) targets.push({ target: `${node.uuid}/${slot}`, list });
  });
  return targets;
}

function uuidsOf(layout: Layout): string[] {
  const uuids: string[] = [];
  walkLayout(layout, (node) => uuids.push(node.uuid));
  return uuids;
}

let fresh = 0;

/** An output for `intent` on `document`; some are impossible on purpose (the reducer must reject them cleanly). */
function outputFor(document: CanvasDocument, intent: Intent, callId: string): ToolOutput | undefined {
  const uuids = uuidsOf(document.layout);
  const targets = targetsOf(document.layout);
  const [a, b, c] = intent.pick as [number, number, number];
  const where = targets[a % targets.length]!;
  const reference = where.list.length > 0 ? where.list[b % where.list.length]!.uuid : undefined;
  const placement = reference === undefined ? 'inside' : intent.placement;
  const at = placement === 'inside' ? {} : { reference_uuid: reference! };
  switch (intent.kind) {
    case 'place': {
      fresh += 1;
      const node: ComponentNode = {
        uuid: `p${fresh}`,
        component: 'c',
        props: { label: `placed ${fresh}` },
        slots: { a: [], b: c % 2 ? [{ uuid: `p${fresh}x`, component: 'c', props: {} }] : [] },
      };
      return {
        type: 'place_components',
        call_id: callId,
        operations: [{ target: where.target, placement, ...at, components: [node] }],
      };
    }
    case 'edit':
      if (uuids.length === 0) return undefined;
      return {
        type: 'edit_components',
        call_id: callId,
        component_updates: { [uuids[a % uuids.length]!]: { [intent.prop]: intent.value } },
      };
    case 'page':
      return { type: 'set_page_value', call_id: callId, field: intent.prop, value: intent.value };
    case 'remove': {
      if (uuids.length === 0) return undefined;
      const chosen = [...new Set([uuids[a % uuids.length]!, uuids[c % uuids.length]!])];
      return { type: 'remove_components', call_id: callId, uuids: chosen };
    }
    case 'move': {
      if (uuids.length === 0) return undefined;
      const moved = uuids[c % uuids.length]!;
      if (reference === moved) return undefined;
      return {
        type: 'move_components',
        call_id: callId,
        operations: [{ uuids: [moved], target: where.target, placement, ...at }],
      };
    }
  }
}

describe('round trip, as a property over random layouts and outputs', () => {
  it('apply then the inverse gives back the original document; rejected outputs change nothing', () => {
    fc.assert(
      fc.property(
        layoutArbitrary,
        fc
          .dictionary(fc.constantFrom('title', 'label', 'extra'), fc.string({ maxLength: 4 }))
          .map((page) => ({ ...page })),
        fc.array(intentArbitrary, { minLength: 1, maxLength: 8 }),
        (layout, page, intents) => {
          const original: CanvasDocument = { layout, page };
          const frozen = structuredClone(original);
          let document = original;
          const inverse: ToolOutput[] = [];
          intents.forEach((intent, index) => {
            const output = outputFor(document, intent, `call-${index}`);
            if (!output) return;
            ToolOutput.parse(output);
            const applied = applyOutputsWithResults(document, [output]);
            document = applied.document;
            inverse.unshift(...applied.inverse);
          });
          const undone = applyOutputsWithResults(document, inverse);
          assert.deepEqual(
            undone.results.filter((result) => result.status !== 'applied'),
            [],
          );
          assert.deepEqual(undone.document, frozen);
          assert.deepEqual(original, frozen, 'the input was never changed');
          for (const output of inverse) ToolOutput.parse(output);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("undo after a person's later edit keeps that edit, and undoes the rest", () => {
    fc.assert(
      fc.property(
        layoutArbitrary,
        fc.array(intentArbitrary, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (layout, intents, pick) => {
          let document: CanvasDocument = { layout, page: {} };
          const inverse: ToolOutput[] = [];
          intents.forEach((intent, index) => {
            const output = outputFor(document, intent, `call-${index}`);
            if (!output) return;
            const applied = applyOutputsWithResults(document, [output]);
            document = applied.document;
            inverse.unshift(...applied.inverse);
          });
          const uuids = uuidsOf(document.layout);
          if (uuids.length === 0) return;
          const edited = uuids[pick % uuids.length]!;
          const person = applyOutputs(document, [
            {
              type: 'edit_components',
              call_id: 'person',
              component_updates: { [edited]: { label: 'the person wrote this' } },
            },
          ]);
          const undone = applyOutputsWithResults(person, inverse);
          // Whoever made it, the component the person edited stays, with their text: a removal of it (or of what
          // holds it) that the agent would undo is refused as a conflict.
          assert.equal(findComponent(undone.document.layout, edited)?.props.label, 'the person wrote this');
          for (const result of undone.results.filter((result) => result.status === 'rejected'))
            assert.ok(result.reason && result.reason.length > 0, 'what could not be undone says why');
        },
      ),
      { numRuns: 300 },
    );
  });
});
