// Derived props (spec §10.1): props the host computes from others. The agent never sets them, placed nodes list
// them, and neither a host's comparison nor the server's report of the person's changes counts them.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  applyOutputsWithResults,
  Catalog,
  type CanvasDocument,
  type ComponentNode,
  findComponent,
  type PlaceComponentsOutput,
} from '../src/index.js';
import { derivedPropsOf, diffDocument, digestDocument, PropsPrints } from '../src/server.js';
import { editComponentsTool } from '../src/tools/edit-components.js';
import { getComponentDetailsTool } from '../src/tools/get-component-details.js';
import { placeComponentsTool } from '../src/tools/place-components.js';
import { removeComponentsTool } from '../src/tools/remove-components.js';
import { catalog, contextOf, documentOf, emptyLayout, refusal, run } from './support/tools-fixtures.js';

/** What the demo editor does: a heading's anchor made from its text. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The host computing every heading's anchor, as a page builder's resolveData does after any change. */
function fillAnchors(document: CanvasDocument): CanvasDocument {
  const copy = structuredClone(document);
  const visit = (nodes: ComponentNode[]) => {
    for (const node of nodes) {
      if (node.component === 'sdc.demo.heading') node.props.anchor = slug(String(node.props.text));
      for (const children of Object.values(node.slots ?? {})) visit(children);
    }
  };
  for (const region of Object.values(copy.layout.regions)) visit(region.components);
  return copy;
}

/** A page whose content holds one heading the host has computed the anchor of, listing it as derived. */
function headingPage(derived: string[] | null = ['anchor']): CanvasDocument {
  const heading: ComponentNode = {
    uuid: 'h-1',
    component: 'sdc.demo.heading',
    props: { text: 'Our cookies', level: 2, align: 'left', anchor: 'our-cookies' },
  };
  if (derived) heading.derived = derived;
  return { layout: { regions: { content: { components: [heading] } } }, page: {} };
}

const placeHeading = (props: string) => ({
  operations: [{ target: 'content', placement: 'inside', components: `- sdc.demo.heading: {props: ${props}}` }],
});

describe('derived props in the catalog (spec §10.1)', () => {
  const withProp = (prop: Record<string, unknown>) =>
    Catalog.safeParse({
      components: [{ id: 'x.heading', name: 'Heading', description: 'A heading.', props: { anchor: prop } }],
    });

  it('takes a derived prop that is optional and has no default', () => {
    const parsed = withProp({ type: 'string', derived: true });
    assert.ok(parsed.success);
    assert.equal(parsed.data.components[0]!.props.anchor!.derived, true);
  });

  it('refuses a derived prop that is required, or has a default, one issue each', () => {
    const parsed = withProp({ type: 'string', derived: true, required: true, default: 'x' });
    assert.ok(!parsed.success);
    assert.deepEqual(
      parsed.error.issues.map((issue) => issue.message),
      ['a derived prop cannot be required (spec §10.1)', 'a derived prop cannot have a default (spec §10.1)'],
    );
  });

  it('tells the model a prop is derived in the component details', async () => {
    const { result } = await run(getComponentDetailsTool, { component_ids: ['sdc.demo.heading'] });
    assert.match(result, /anchor:\n {6}type: string\n {6}derived: true # computed by the page: never set it/);
  });
});

describe('the agent never sets a derived prop (spec §10.1)', () => {
  it('places a heading without its anchor and lists the anchor as derived', async () => {
    const { output } = await run(
      placeComponentsTool,
      placeHeading('{text: Our cookies}'),
      contextOf(documentOf(emptyLayout)),
    );
    const node = (output as PlaceComponentsOutput).operations[0]!.components[0]!;
    assert.deepEqual(node.props, { text: 'Our cookies', level: 2, align: 'left' });
    assert.deepEqual(node.derived, ['anchor']);
  });

  it('lists nothing on a component without derived props', async () => {
    const { output } = await run(
      placeComponentsTool,
      { operations: [{ target: 'content', placement: 'inside', components: '- sdc.demo.text: {props: {body: Hi}}' }] },
      contextOf(documentOf(emptyLayout)),
    );
    assert.equal(Object.hasOwn((output as PlaceComponentsOutput).operations[0]!.components[0]!, 'derived'), false);
  });

  it('refuses a placement that gives a derived prop a value, naming it', async () => {
    await refusal(
      placeComponentsTool,
      placeHeading('{text: Our cookies, anchor: cookies}'),
      ['prop `anchor` of sdc.demo.heading is computed by the page', 'leave it out'],
      contextOf(documentOf(emptyLayout)),
    );
  });

  it('refuses an edit of a prop the catalog marks derived, even on a node that does not list it', async () => {
    await refusal(
      editComponentsTool,
      { component_edits: 'h-1:\n  anchor: cookies\n' },
      [
        'component_edits.h-1: prop `anchor` of sdc.demo.heading is computed by the page',
        'change the props it is computed from',
      ],
      contextOf(headingPage(null)),
    );
  });

  it('refuses an edit of a prop the node lists as derived, and applies nothing of the call', async () => {
    const page = headingPage(['anchor', 'align']);
    await refusal(
      editComponentsTool,
      { component_edits: 'h-1:\n  text: Fresh cookies\n  align: center\n' },
      ['prop `align` of sdc.demo.heading is computed by the page'],
      contextOf(page),
    );
    // The same edit of the text alone goes through: only the derived prop was refused.
    const { output } = await run(
      editComponentsTool,
      { component_edits: 'h-1:\n  text: Fresh cookies\n' },
      contextOf(page),
    );
    assert.deepEqual(output?.type === 'edit_components' && output.component_updates, {
      'h-1': { text: 'Fresh cookies' },
    });
  });
});

describe("a host's comparisons leave derived props out (spec §10.1, §11.4, §17.2)", () => {
  it('undoes a placement after the host filled in the derived prop', async () => {
    const { output } = await run(
      placeComponentsTool,
      placeHeading('{text: Our cookies}'),
      contextOf(documentOf(emptyLayout)),
    );
    const placed = applyOutputsWithResults(documentOf(emptyLayout), [output!]);
    const computed = fillAnchors(placed.document);
    assert.equal(findComponent(computed.layout, 'u1')?.props.anchor, 'our-cookies');
    const undone = applyOutputsWithResults(computed, placed.inverse);
    assert.deepEqual(undone.results, [{ call_id: 'call-1', status: 'applied' }]);
    assert.deepEqual(undone.document.layout.regions.content!.components, []);
  });

  it('still refuses the undo when the person changed a prop that is not derived (the control)', async () => {
    const { output } = await run(
      placeComponentsTool,
      placeHeading('{text: Our cookies}'),
      contextOf(documentOf(emptyLayout)),
    );
    const placed = applyOutputsWithResults(documentOf(emptyLayout), [output!]);
    const computed = fillAnchors(placed.document);
    findComponent(computed.layout, 'u1')!.props.text = 'Fresh every day';
    const undone = applyOutputsWithResults(fillAnchors(computed), placed.inverse);
    assert.equal(undone.results[0]!.status, 'rejected');
    assert.deepEqual(
      undone.results[0]!.conflicts?.map((conflict) => ('prop' in conflict ? conflict.prop : undefined)),
      ['text'],
    );
  });

  it('removes a component whose derived prop changed since the tool ran, when the host lists it', () => {
    const removal = {
      type: 'remove_components' as const,
      call_id: 'r',
      uuids: ['h-1'],
      replaces: { 'h-1': headingPage().layout.regions.content!.components[0]! },
    };
    const recomputed = headingPage();
    findComponent(recomputed.layout, 'h-1')!.props.anchor = 'our-cookies-2';
    assert.deepEqual(applyOutputsWithResults(recomputed, [removal]).results, [{ call_id: 'r', status: 'applied' }]);
    // Without `derived` on either node the anchor is compared like any prop: a host reads the lists, not the catalog.
    const unlisted = headingPage(null);
    findComponent(unlisted.layout, 'h-1')!.props.anchor = 'our-cookies-2';
    const plain = { ...removal, replaces: { 'h-1': headingPage(null).layout.regions.content!.components[0]! } };
    assert.equal(applyOutputsWithResults(unlisted, [plain]).results[0]!.status, 'rejected');
  });
});

describe('a removal lists the derived props of what it replaces (spec §10.1)', () => {
  it("lists the catalog's marks on a node the host did not list, nested ones included, and then removes it after the host recomputed them", async () => {
    const section: ComponentNode = {
      uuid: 's-1',
      component: 'sdc.demo.section',
      props: { background: 'none' },
      slots: { content: [headingPage(null).layout.regions.content!.components[0]!] },
    };
    const page: CanvasDocument = { layout: { regions: { content: { components: [section] } } }, page: {} };
    const { output } = await run(removeComponentsTool, { uuids: ['s-1'] }, contextOf(page));
    assert.ok(output?.type === 'remove_components');
    const replaced = output.replaces!['s-1']!;
    assert.equal(Object.hasOwn(replaced, 'derived'), false, 'the section has no derived props');
    assert.deepEqual(replaced.slots!.content![0]!.derived, ['anchor']);
    assert.equal(Object.hasOwn(findComponent(page.layout, 'h-1')!, 'derived'), false, 'the page is left as it was');
    const recomputed = structuredClone(page);
    findComponent(recomputed.layout, 'h-1')!.props.anchor = 'our-cookies-again';
    assert.deepEqual(applyOutputsWithResults(recomputed, [output]).results, [{ call_id: 'call-1', status: 'applied' }]);
  });
});

describe("the server's report of the person's changes leaves derived props out (spec §10.1, §16.1)", () => {
  it('prints the same props with another derived list afresh, never from the cache of the first', () => {
    const props = { text: 'Our cookies', level: 2, anchor: 'our-cookies' };
    const cached = new PropsPrints();
    const node = (derived: string[]): ComponentNode => ({ uuid: 'h', component: 'sdc.demo.heading', props, derived });
    // Small props: hashed at once, never in steps.
    const hashOf = (prints: PropsPrints, of: ComponentNode) => prints.nodeHashSteps(of, 1_000, 1_000) as number;
    const first = hashOf(cached, node(['anchor']));
    const second = hashOf(cached, node(['anchor', 'level']));
    assert.equal(second, hashOf(new PropsPrints(), node(['anchor', 'level'])));
    assert.notEqual(first, second);
  });

  it('does not report a derived prop the node lists, nor the node when only that prop changed', () => {
    const before = headingPage();
    const after = headingPage();
    findComponent(after.layout, 'h-1')!.props.anchor = 'recomputed';
    assert.deepEqual(diffDocument(digestDocument(before), after), []);
    assert.deepEqual(diffDocument(digestDocument(before, { keepValuesOf: new Set(['h-1']) }), after), []);
  });

  it('does not report a prop the catalog marks derived, on a node that does not list it, given the catalog', () => {
    const prints = () => new PropsPrints(derivedPropsOf(catalog));
    const before = headingPage(null);
    const after = headingPage(null);
    findComponent(after.layout, 'h-1')!.props.anchor = 'recomputed';
    assert.deepEqual(diffDocument(digestDocument(before, { prints: prints() }), after, [], prints()), []);
    // Without the catalog it is a prop like any other: reported.
    assert.deepEqual(
      diffDocument(digestDocument(before), after).map((change) => change.kind),
      ['props'],
    );
  });

  it('hashes the same props again once the node lists other derived props, a list changed in place too', () => {
    const node: ComponentNode = {
      uuid: 'h-1',
      component: 'sdc.demo.heading',
      props: { text: 'Hi', anchor: 'hi' },
      derived: ['anchor'],
    };
    const cached = new PropsPrints();
    const hash = (prints: PropsPrints) => prints.nodeHashSteps(node, Number.POSITIVE_INFINITY, 1);
    const withoutAnchor = hash(cached);
    assert.equal(hash(cached), withoutAnchor);
    node.derived!.push('text');
    const withoutBoth = hash(cached);
    assert.equal(withoutBoth, hash(new PropsPrints()));
    assert.notEqual(withoutBoth, withoutAnchor);
    node.derived = ['anchor'];
    assert.equal(hash(cached), withoutAnchor);
  });

  it('takes a placed node whose derived prop the host filled in for the page it expected', async () => {
    const { output } = await run(
      placeComponentsTool,
      placeHeading('{text: Our cookies}'),
      contextOf(documentOf(emptyLayout)),
    );
    const expected = applyOutputsWithResults(documentOf(emptyLayout), [output!]).document;
    const digest = digestDocument(expected, { keepValuesOf: new Set(['u1']) });
    assert.deepEqual(diffDocument(digest, fillAnchors(expected)), []);
  });

  it('still reports a change of a prop that is not derived, by name (the control)', () => {
    const before = headingPage();
    const after = headingPage();
    findComponent(after.layout, 'h-1')!.props.text = 'Fresh cookies';
    findComponent(after.layout, 'h-1')!.props.anchor = 'fresh-cookies';
    const changes = diffDocument(digestDocument(before, { keepValuesOf: new Set(['h-1']) }), after);
    assert.deepEqual(
      changes.map((change) => (change.kind === 'prop' ? change.prop : change.kind)),
      ['text'],
    );
  });
});
