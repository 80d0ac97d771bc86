import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { describeCatalog, runSteps, uuidTree, uuidTreeSteps } from '../src/server.js';
import { getComponentDetailsTool } from '../src/tools/get-component-details.js';
import { catalog, emptyLayout, nestedLayout, refusal, run } from './support/tools-fixtures.js';

describe('get_component_details', () => {
  it('describes props (type, enum, required, default, description, examples) and slots as YAML-like text', async () => {
    const { result, output } = await run(getComponentDetailsTool, { component_ids: ['sdc.demo.hero'] });
    assert.equal(output, undefined);
    assert.ok(result.startsWith('sdc.demo.hero:\n  name: Hero\n  description: A full-width opening banner'));
    assert.ok(
      result.includes(
        '    heading:\n      type: string\n      required: true\n      description: The main headline, a few words.\n' +
          '      examples: [ "Fresh cookies, baked every morning" ]',
      ),
    );
    assert.ok(
      result.includes(
        '    theme:\n      type: string\n      enum: [ light, dark, brand ]\n      default: light\n      description: Colour scheme.',
      ),
    );
    assert.ok(result.includes('    image:\n      type: image # {src, alt}'));
    assert.ok(result.includes('  slots: none'));
  });

  it('is valid YAML whose example placement the place_components tool accepts', async () => {
    const { result } = await run(getComponentDetailsTool, { component_ids: ['sdc.demo.grid', 'sdc.demo.button'] });
    const parsed = parse(result) as Record<string, { slots: Record<string, { allowed: unknown }>; props: unknown }>;
    assert.deepEqual(Object.keys(parsed), ['sdc.demo.grid', 'sdc.demo.button']);
    assert.deepEqual(parsed['sdc.demo.grid']!.slots.items!.allowed, [
      'sdc.demo.card',
      'sdc.demo.image',
      'sdc.demo.testimonial',
    ]);
    assert.ok(
      result.includes(
        '  example of components YAML:\n    - sdc.demo.button:\n        props:\n          label: See the menu\n          url: /menu',
      ),
    );
  });

  it('says a slot takes any component when it has no allowed list', async () => {
    const { result } = await run(getComponentDetailsTool, { component_ids: ['sdc.demo.two_column'] });
    assert.ok(
      result.includes(
        '    left:\n      title: Left column\n      description: Components in the left column.\n      allowed: any component',
      ),
    );
  });

  it('describes each id once, in the order asked', async () => {
    const { result } = await run(getComponentDetailsTool, {
      component_ids: ['sdc.demo.text', 'sdc.demo.card', 'sdc.demo.text'],
    });
    assert.deepEqual(
      result.split('\n').filter((line) => /^\S/.test(line)),
      ['sdc.demo.text:', 'sdc.demo.card:'],
    );
  });

  it('refuses unknown ids, listing close matches and the catalog', async () => {
    await refusal(
      getComponentDetailsTool,
      { component_ids: ['sdc.demo.hero', 'sdc.demo.buton', 'sdc.demo.carousel'] },
      [
        'get_component_details: these ids are not in the catalog:\n- `sdc.demo.buton`: did you mean sdc.demo.button?\n- `sdc.demo.carousel`\n',
        'Catalog ids: sdc.demo.hero, sdc.demo.heading',
      ],
    );
  });

  it('allows parallel calls', () => {
    assert.equal(getComponentDetailsTool.allowParallel, true);
  });
});

describe('describeCatalog', () => {
  it('lists the id, name and description of every component, with slot names', () => {
    const text = describeCatalog(catalog);
    const lines = text.split('\n');
    assert.match(lines[0]!, /^Component catalog \(12 components\)\. Call get_component_details/);
    assert.equal(lines.length, 1 + catalog.components.length);
    assert.equal(
      lines[1],
      '- sdc.demo.hero (Hero): A full-width opening banner with a big heading, a short pitch, an optional image and one call to action.',
    );
    assert.ok(
      lines.includes('- sdc.demo.grid (Card grid): A responsive grid of equal cells, typically cards. Slots: items.'),
    );
  });
});

describe('uuidTree', () => {
  it('draws regions, components and slots as an indented uuid tree', () => {
    assert.equal(
      uuidTree(nestedLayout),
      [
        'region header',
        '  hero-1 sdc.demo.hero',
        'region content',
        '  section-1 sdc.demo.section',
        '    slot content',
        '      columns-1 sdc.demo.two_column',
        '        slot left',
        '          text-1 sdc.demo.text',
        '        slot right',
        '          grid-1 sdc.demo.grid',
        '            slot items',
        '              card-1 sdc.demo.card',
        '              card-2 sdc.demo.card',
        '  footer-1 sdc.demo.footer',
      ].join('\n'),
    );
  });

  it('draws a large page in steps, the same tree as at once (spec §13.2)', async () => {
    const layout = {
      regions: {
        content: {
          components: Array.from({ length: 5_000 }, (_, index) => ({
            uuid: `row-${index}`,
            component: 'sdc.demo.grid',
            props: {},
            slots: { items: [{ uuid: `cell-${index}`, component: 'sdc.demo.text', props: {} }] },
          })),
        },
      },
    };
    let pauses = 0;
    const tree = await runSteps(uuidTreeSteps(layout), async () => {
      pauses += 1;
    });
    assert.equal(tree, uuidTree(layout));
    assert.ok(pauses >= 5, `${pauses} steps for 10,000 components`);
  });

  it('marks empty regions and slots', () => {
    assert.equal(uuidTree(emptyLayout), 'region content (empty)');
    const layout = {
      regions: {
        content: { components: [{ uuid: 'g', component: 'sdc.demo.grid', props: {}, slots: { items: [] } }] },
      },
    };
    assert.equal(uuidTree(layout), 'region content\n  g sdc.demo.grid\n    slot items (empty)');
    assert.equal(uuidTree({ regions: {} }), '(the layout has no regions)');
  });
});
