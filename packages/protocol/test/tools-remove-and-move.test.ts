import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyOutputs, findComponent, REQUIRED_OUTPUT_TYPES } from '../src/index.js';
import { builtinTools, describeCatalog, executeToolCalls, offeredTools } from '../src/server.js';
import { moveComponentsTool } from '../src/tools/move-components.js';
import { removeComponentsTool } from '../src/tools/remove-components.js';
import { catalog, contextOf, documentOf, nestedLayout, pageFields, refusal, run } from './support/tools-fixtures.js';

// layouts/nested.yaml: header: hero-1; content: section-1 [content: columns-1 [left: text-1, right: grid-1 [items:
// card-1, card-2]]], footer-1.

describe('remove_components', () => {
  it('outputs the uuids with what it removes as replaces, and tells the model where each was', async () => {
    const { output, result } = await run(removeComponentsTool, { uuids: ['grid-1', 'footer-1'] });
    assert.deepEqual(output, {
      type: 'remove_components',
      call_id: 'call-1',
      uuids: ['grid-1', 'footer-1'],
      replaces: {
        'grid-1': findComponent(nestedLayout, 'grid-1'),
        'footer-1': findComponent(nestedLayout, 'footer-1'),
      },
    });
    assert.ok(result.startsWith('Removed 2 components:\n'), result);
    assert.ok(result.includes('- grid-1 (sdc.demo.grid), #1 in columns-1/right, with the 2 components inside it'));
    assert.ok(result.includes('- footer-1 (sdc.demo.footer), #2 in content'));
    assert.ok(!result.includes('card-1'), 'the rest of the page is not repeated: the model was shown it');
  });

  it('leaves out a component inside another one it removes, and says it goes with it', async () => {
    const { output, result } = await run(removeComponentsTool, { uuids: ['card-1', 'section-1'] });
    assert.deepEqual(output?.type === 'remove_components' ? output.uuids : [], ['section-1']);
    assert.ok(result.includes('- card-1 went with section-1, which holds it'), result);
    applyOutputs(documentOf(), [output!]);
  });

  it('refuses a uuid that is not on the page, suggesting close ones, and outputs nothing', async () => {
    await refusal(removeComponentsTool, { uuids: ['card-1', 'card-3'] }, [
      'uuids[1]: no component with uuid `card-3` in the layout; did you mean `card-1` or `card-2`?',
    ]);
  });

  it('allows parallel calls, and declares its output type', () => {
    assert.equal(removeComponentsTool.allowParallel, true);
    assert.equal(removeComponentsTool.outputType, 'remove_components');
  });
});

describe('move_components', () => {
  it('moves a row above another, with replaces saying where it was', async () => {
    const { output, result } = await run(moveComponentsTool, {
      operations: [{ uuids: ['footer-1'], target: 'content', placement: 'above', reference_uuid: 'section-1' }],
    });
    assert.deepEqual(output, {
      type: 'move_components',
      call_id: 'call-1',
      operations: [{ uuids: ['footer-1'], target: 'content', placement: 'above', reference_uuid: 'section-1' }],
      replaces: { 'footer-1': 'content' },
    });
    assert.ok(result.includes('- footer-1 (sdc.demo.footer) from content to above section-1 in content'), result);
    const after = applyOutputs(documentOf(), [output!]);
    assert.deepEqual(
      after.layout.regions.content!.components.map((node) => node.uuid),
      ['footer-1', 'section-1'],
    );
  });

  it('refuses a call that moves more components than one call moves, all its operations together', async () => {
    const uuids = (from: number) => Array.from({ length: 25 }, (_, index) => `row-${from + index}`);
    await refusal(
      moveComponentsTool,
      {
        operations: [
          { uuids: uuids(0), target: 'content', placement: 'above', reference_uuid: 'section-1' },
          { uuids: uuids(25), target: 'content', placement: 'above', reference_uuid: 'section-1' },
          { uuids: ['footer-1'], target: 'content', placement: 'above', reference_uuid: 'section-1' },
        ],
      },
      ['its operations list 51 components', 'one call moves at most 50', 'next call'],
    );
  });

  it('moves into an empty target, and checks each operation on the layout the earlier ones leave', async () => {
    const { output } = await run(moveComponentsTool, {
      operations: [
        { uuids: ['text-1'], target: 'header', placement: 'below', reference_uuid: 'hero-1' },
        { uuids: ['card-1'], target: 'columns-1/left', placement: 'inside' },
      ],
    });
    const after = applyOutputs(documentOf(), [output!]);
    assert.deepEqual(
      findComponent(after.layout, 'columns-1')!.slots!.left!.map((node) => node.uuid),
      ['card-1'],
    );
  });

  it('refuses moving a component into itself or into a slot inside it', async () => {
    await refusal(
      moveComponentsTool,
      { operations: [{ uuids: ['section-1'], target: 'section-1/content', placement: 'inside' }] },
      ['section-1 cannot move into `section-1/content`, its own slot; a component cannot go into itself'],
    );
    await refusal(
      moveComponentsTool,
      { operations: [{ uuids: ['columns-1'], target: 'grid-1/items', placement: 'inside' }] },
      ['a slot of grid-1, which is inside it'],
    );
  });

  it('refuses a slot that does not allow the component, naming what it allows', async () => {
    await refusal(
      moveComponentsTool,
      { operations: [{ uuids: ['text-1'], target: 'grid-1/items', placement: 'above', reference_uuid: 'card-1' }] },
      ['sdc.demo.text is not allowed in slot `items` of sdc.demo.grid (grid-1); allowed: sdc.demo.card'],
    );
  });

  it('refuses an unknown uuid, a uuid listed twice, a moved reference, and inside on a target that is not empty', async () => {
    await refusal(moveComponentsTool, { operations: [{ uuids: ['card-9'], target: 'content', placement: 'inside' }] }, [
      'no component with uuid `card-9` in the layout',
    ]);
    await refusal(
      moveComponentsTool,
      { operations: [{ uuids: ['card-1', 'card-1'], target: 'header', placement: 'inside' }] },
      ['card-1 is listed twice'],
    );
    await refusal(
      moveComponentsTool,
      {
        operations: [
          { uuids: ['card-1', 'card-2'], target: 'grid-1/items', placement: 'below', reference_uuid: 'card-2' },
        ],
      },
      ['reference_uuid `card-2` is one of the components being moved'],
    );
    await refusal(moveComponentsTool, { operations: [{ uuids: ['card-1'], target: 'content', placement: 'inside' }] }, [
      'target `content` is not empty',
    ]);
  });
});

describe('which tools a turn offers (spec §5.1)', () => {
  const all = Object.keys(builtinTools);

  it('offers the remove and move tools only to a client that declared their outputs', () => {
    assert.deepEqual(Object.keys(offeredTools(builtinTools, all, [])).sort(), [
      'edit_components',
      'get_component_details',
      'place_components',
      'set_page_value',
    ]);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, all, ['remove_components'])).sort(), [
      'edit_components',
      'get_component_details',
      'place_components',
      'remove_components',
      'set_page_value',
    ]);
    assert.equal(Object.keys(offeredTools(builtinTools, all, ['remove_components', 'move_components'])).length, 6);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, ['edit_components'], ['move_components'])), [
      'edit_components',
    ]);
  });

  it('treats an output of a type the client did not declare as a bug of the tool, not an output', async () => {
    const calls = [{ id: 'call-1', name: 'remove_components', arguments: '{"uuids": ["card-1"]}' }];
    const options = { tools: builtinTools, catalog, document: documentOf(), pageFields, newUuid: () => 'x' };
    await assert.rejects(executeToolCalls(calls, options), /did not declare/);
    const declared = await executeToolCalls(calls, { ...options, declaredOutputs: ['remove_components'] });
    assert.equal(declared.outputs[0]?.type, 'remove_components');
    assert.ok((REQUIRED_OUTPUT_TYPES as readonly string[]).includes('place_components'));
  });

  it('tells the model about removing and moving, and what each slot accepts, only when it may', () => {
    const plain = describeCatalog(catalog);
    assert.ok(!plain.includes('remove_components'));
    assert.ok(plain.includes('Slots: items.'));
    const both = describeCatalog(catalog, { tools: ['remove_components', 'move_components'] });
    assert.ok(both.includes('take components off the page with remove_components'));
    assert.ok(both.includes('rearrange it with move_components'));
    assert.ok(both.includes('Slots: items (only sdc.demo.card, sdc.demo.image, sdc.demo.testimonial).'), both);
  });

  it('runs both tools through the context of a real call', async () => {
    const context = contextOf(documentOf(), 'call-9');
    const { output } = await run(removeComponentsTool, { uuids: ['hero-1'] }, context);
    assert.equal(output?.call_id, 'call-9');
  });
});
