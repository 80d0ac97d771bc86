import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyOutputs, findComponent, LIMITS, type PlaceComponentsOutput } from '../src/index.js';
import { collectPlacedUuids } from '../src/server.js';
import { placeComponentsTool } from '../src/tools/place-components.js';
import { catalog, contextOf, documentOf, emptyLayout, nestedLayout, refusal, run } from './support/tools-fixtures.js';

const place = placeComponentsTool;

/** One operation's input. */
function op(
  components: string,
  target = 'content',
  placement = 'inside',
  reference_uuid?: string,
): Record<string, unknown> {
  return { target, placement, components, ...(reference_uuid ? { reference_uuid } : {}) };
}

const emptyDoc = documentOf(emptyLayout);

describe('place_components: a valid placement', () => {
  const sectionWithGrid = `
- sdc.demo.section:
    props: {heading: Our cookies}
    slots:
      content:
        - sdc.demo.heading: {props: {text: Best sellers}}
        - sdc.demo.grid:
            props: {columns: 2}
            slots:
              items:
                - sdc.demo.card: {props: {title: Chocolate chip, price: "$3.50"}}
                - sdc.demo.card: {props: {title: Oatmeal}}
`;

  it('assigns every uuid with ctx.newUuid in placed order, each node before its slot children', async () => {
    const { output } = await run(place, { operations: [op(sectionWithGrid)] }, contextOf(emptyDoc));
    assert.equal(output?.type, 'place_components');
    assert.deepEqual(collectPlacedUuids([output!]), ['u1', 'u2', 'u3', 'u4', 'u5']);
    const section = (output as PlaceComponentsOutput).operations[0]!.components[0]!;
    assert.equal(section.component, 'sdc.demo.section');
    assert.deepEqual(
      section.slots?.content?.map((node) => node.component),
      ['sdc.demo.heading', 'sdc.demo.grid'],
    );
    assert.deepEqual(
      section.slots?.content?.[1]?.slots?.items?.map((node) => [node.uuid, node.props.title]),
      [
        ['u4', 'Chocolate chip'],
        ['u5', 'Oatmeal'],
      ],
    );
  });

  it('fills omitted optional props with their catalog default, and only those', async () => {
    const { output } = await run(place, { operations: [op(sectionWithGrid)] }, contextOf(emptyDoc));
    const section = (output as PlaceComponentsOutput).operations[0]!.components[0]!;
    assert.deepEqual(section.props, { heading: 'Our cookies', background: 'none' });
    assert.deepEqual(section.slots?.content?.[0]?.props, { text: 'Best sellers', level: 2, align: 'left' });
    // Given values win over defaults; props without a default stay unset.
    assert.deepEqual(section.slots?.content?.[1]?.props, { columns: 2 });
    assert.deepEqual(section.slots?.content?.[1]?.slots?.items?.[1]?.props, { title: 'Oatmeal' });
  });

  it('lists every slot of the catalog component, empty ones as []', async () => {
    const { output } = await run(
      place,
      { operations: [op('- sdc.demo.two_column:\n    slots: {left: [{sdc.demo.text: {props: {body: Hi}}}]}')] },
      contextOf(emptyDoc),
    );
    const columns = (output as PlaceComponentsOutput).operations[0]!.components[0]!;
    assert.deepEqual(Object.keys(columns.slots ?? {}), ['left', 'right']);
    assert.deepEqual(columns.slots?.right, []);
    assert.equal(columns.slots?.left?.length, 1);
  });

  it('accepts a component written with no body at all when it needs no props', async () => {
    const { output } = await run(place, { operations: [op('- sdc.demo.grid:')] }, contextOf(emptyDoc));
    const grid = (output as PlaceComponentsOutput).operations[0]!.components[0]!;
    assert.deepEqual(grid, { uuid: 'u1', component: 'sdc.demo.grid', props: { columns: 3 }, slots: { items: [] } });
  });

  it('returns the assigned uuids and the predicted layout tree, computed with the shared reducer', async () => {
    const document = documentOf(nestedLayout);
    const { output, result } = await run(
      place,
      {
        operations: [
          op(
            '- sdc.demo.text: {props: {body: Welcome}}\n- sdc.demo.button: {props: {label: Order, url: /order}}',
            'content',
            'below',
            'section-1',
          ),
        ],
      },
      contextOf(document),
    );
    assert.match(result, /^Placed 2 components\./);
    assert.ok(result.includes('- sdc.demo.text: u1 (below section-1 in content)'), result);
    assert.ok(result.includes('- sdc.demo.button: u2 (below section-1 in content)'), result);
    assert.ok(output, 'the placement is sent');
    assert.ok(!result.includes('footer-1'), 'the rest of the page is not repeated: the model was shown it');
    assert.equal(result.split('\n').length, 3, 'one line per placed component after the heading');
  });

  it('nests slot children under their parent in the uuid list', async () => {
    const { result } = await run(place, { operations: [op(sectionWithGrid)] }, contextOf(emptyDoc));
    assert.ok(result.includes('- sdc.demo.section: u1 (in content)\n  - sdc.demo.heading: u2 (in u1/content)'));
    assert.ok(result.includes('    - sdc.demo.card: u4 (in u3/items)'));
  });

  it('places into a slot of a component that an earlier operation of the same call placed', async () => {
    const { output, result } = await run(
      place,
      {
        operations: [
          op('- sdc.demo.section: {props: {heading: New}}'),
          op('- sdc.demo.text: {props: {body: Inside the new section}}', 'u1/content', 'inside'),
          op('- sdc.demo.button: {props: {label: Go, url: "https://example.com/go"}}', 'u1/content', 'below', 'u2'),
        ],
      },
      contextOf(emptyDoc),
    );
    const after = applyOutputs(emptyDoc, [output!]);
    assert.deepEqual(
      findComponent(after.layout, 'u1')?.slots?.content?.map((node) => node.uuid),
      ['u2', 'u3'],
    );
    assert.ok(result.includes('- sdc.demo.text: u2 (in u1/content)'));
  });

  it('does not carry a reference_uuid on an inside placement', async () => {
    const { output } = await run(
      place,
      { operations: [op('- sdc.demo.grid:', 'content', 'inside', 'whatever')] },
      contextOf(emptyDoc),
    );
    assert.equal('reference_uuid' in (output as PlaceComponentsOutput).operations[0]!, false);
  });

  it('does not allow parallel calls by default', () => {
    assert.equal(place.allowParallel, false);
  });
});

describe('place_components: catalog validation', () => {
  const refuse = (components: string, fragments: string[], target = 'content', placement = 'inside') =>
    refusal(place, { operations: [op(components, target, placement)] }, fragments, contextOf(emptyDoc));

  it('refuses an unknown component and suggests the closest ids', async () => {
    await refuse('- sdc.demo.heros: {props: {heading: Hi}}', [
      'unknown component `sdc.demo.heros`',
      'did you mean `sdc.demo.hero`',
    ]);
  });

  it('lists the catalog when nothing is close to an unknown component', async () => {
    await refuse('- carousel:', ['unknown component `carousel`', 'The catalog has: sdc.demo.hero, sdc.demo.heading']);
  });

  it('refuses an unknown prop and names the component props', async () => {
    await refuse('- sdc.demo.hero: {props: {heading: Hi, headline: Hello}}', [
      'sdc.demo.hero has no prop `headline`',
      'did you mean `heading`?',
      'Its props are: heading, subheading, image, cta_label, cta_url, theme, align.',
    ]);
  });

  it('refuses an enum violation, naming the prop, the component and the allowed values', async () => {
    await refuse('- sdc.demo.hero: {props: {heading: Hi, theme: blue}}', [
      "prop `theme` of sdc.demo.hero must be one of light, dark, brand; got 'blue'",
    ]);
  });

  it('refuses a missing required prop', async () => {
    await refuse('- sdc.demo.button: {props: {label: Order}}', [
      'sdc.demo.button is missing required prop `url` (a url',
    ]);
  });

  for (const [type, yaml, fragment] of [
    [
      'string',
      '- sdc.demo.heading: {props: {text: 42}}',
      'prop `text` of sdc.demo.heading must be a string; got 42 (an integer)',
    ],
    ['text', '- sdc.demo.text: {props: {body: [a, b]}}', 'prop `body` of sdc.demo.text must be a text'],
    [
      'url',
      '- sdc.demo.button: {props: {label: Go, url: "javascript:alert(1)"}}',
      'the scheme `javascript:` is not allowed',
    ],
    ['url with spaces', '- sdc.demo.button: {props: {label: Go, url: "/my page"}}', 'it contains spaces'],
    [
      'integer',
      '- sdc.demo.heading: {props: {text: Hi, level: "2"}}',
      "prop `level` of sdc.demo.heading must be an integer; got '2' (a string)",
    ],
    [
      'integer, not a fraction',
      '- sdc.demo.grid: {props: {columns: 2.5}}',
      'prop `columns` of sdc.demo.grid must be an integer; got 2.5',
    ],
    [
      'boolean',
      '- sdc.demo.footer: {props: {business_name: A, copyright: B, show_social: "yes"}}',
      'must be a boolean (true or false)',
    ],
    [
      'image',
      '- sdc.demo.image: {props: {image: cookies.png}}',
      'prop `image` of sdc.demo.image must be an image {src, alt}',
    ],
    ['image without alt', '- sdc.demo.image: {props: {image: {src: a.png}}}', 'alt must be a string'],
    [
      'image with extra keys',
      '- sdc.demo.image: {props: {image: {src: a.png, alt: A, width: 3}}}',
      'only src and alt are allowed, not width',
    ],
    [
      'null',
      '- sdc.demo.image: {props: {image: {src: a.png, alt: A}, caption: null}}',
      'got null (leave an optional prop out',
    ],
  ] as const) {
    it(`refuses a value of the wrong type: ${type}`, async () => {
      await refuse(yaml, [fragment]);
    });
  }

  it('accepts every prop type with a well-formed value', async () => {
    const { output } = await run(
      place,
      {
        operations: [
          op(`
- sdc.demo.hero:
    props:
      heading: Fresh
      subheading: "Line one\\nline two"
      image: {src: assets/hero.svg, alt: A tray}
      cta_url: mailto:hello@example.com
- sdc.demo.footer: {props: {business_name: A, copyright: B, show_social: true}}
- sdc.demo.grid: {props: {columns: 4}}
`),
        ],
      },
      contextOf(emptyDoc),
    );
    assert.equal((output as PlaceComponentsOutput).operations[0]!.components.length, 3);
  });

  it('refuses an unknown slot, naming the slots that exist', async () => {
    await refuse('- sdc.demo.two_column: {slots: {middle: []}}', [
      'sdc.demo.two_column has no slot `middle`',
      'Its slots are: left, right.',
    ]);
    await refuse('- sdc.demo.card: {props: {title: A}, slots: {content: []}}', [
      'sdc.demo.card has no slot `content`',
      'It has no slots.',
    ]);
  });

  it("refuses a child that is not in its slot's allowed list", async () => {
    await refuse('- sdc.demo.grid: {slots: {items: [{sdc.demo.heading: {props: {text: Hi}}}]}}', [
      'components[0].slots.items[0]: sdc.demo.heading is not allowed in slot `items` of sdc.demo.grid; allowed: sdc.demo.card, sdc.demo.image, sdc.demo.testimonial',
    ]);
  });

  it('refuses YAML that does not parse, with its position', async () => {
    await refuse('- sdc.demo.grid: {props: {columns: 2}', ['`operations[0].components` is not valid YAML (line 1']);
  });

  it('refuses YAML that is not a list', async () => {
    await refuse('sdc.demo.grid: {props: {columns: 2}}', [
      'operations[0].components must be a YAML list; got a map',
      'single-key map',
    ]);
  });

  it('refuses list items that are not single-key maps', async () => {
    await refuse('- sdc.demo.grid\n', [
      'operations[0].components[0]: each item must be a single-key map',
      "got a string 'sdc.demo.grid'",
    ]);
    await refuse('- sdc.demo.heading: {props: {text: Hi}}\n  sdc.demo.text: {props: {body: Hi}}', [
      'got a map with keys sdc.demo.heading, sdc.demo.text',
    ]);
  });

  it('refuses props written directly under the component id, showing where they go', async () => {
    await refuse('- sdc.demo.heading: {text: Hi}', [
      'sdc.demo.heading has `text` next to props/slots',
      'Put prop values under `props:`',
    ]);
  });

  it('reports every catalog problem of every operation at once', async () => {
    const message = await refusal(
      place,
      { operations: [op('- sdc.demo.hero: {props: {theme: blue}}'), op('- sdc.demo.nope:', 'content', 'below', 'x')] },
      [
        '3 problems',
        'operations[0].components[0]: sdc.demo.hero is missing required prop `heading`',
        'operations[1].components[0]: unknown component `sdc.demo.nope`',
      ],
      contextOf(emptyDoc),
    );
    assert.ok(message.includes("got 'blue'"));
  });

  it('refuses the prototype-polluting keys', async () => {
    await refuse('- sdc.demo.text: {props: {body: Hi, __proto__: {polluted: true}}}', [
      'the key `__proto__` is not allowed',
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('place_components: layout validation', () => {
  const refuse = (operation: Record<string, unknown>, fragments: string[]) =>
    refusal(place, { operations: [operation] }, fragments, contextOf(documentOf(nestedLayout)));
  const text = '- sdc.demo.text: {props: {body: Hi}}';

  it('refuses an unknown region, naming the regions', async () => {
    await refuse(op(text, 'main'), [
      'unknown target `main`: the page has no region `main`',
      'Regions: header, content',
    ]);
  });

  it('refuses a target whose parent uuid is not in the layout', async () => {
    await refuse(op(text, 'section-9/content'), [
      'unknown target `section-9/content`: no component with uuid `section-9` in the layout',
      'did you mean `section-1`?',
    ]);
  });

  it('refuses a target slot the parent does not have', async () => {
    await refuse(op(text, 'columns-1/middle', 'inside'), [
      'sdc.demo.two_column (columns-1) has no slot `middle`',
      'Its slots are: left, right.',
    ]);
  });

  it("refuses components the target slot's allowed list excludes", async () => {
    await refuse(op(text, 'grid-1/items', 'below', 'card-2'), [
      'sdc.demo.text is not allowed in slot `items` of sdc.demo.grid (grid-1); allowed: sdc.demo.card',
    ]);
  });

  it('refuses inside on a non-empty target and points to below the last component', async () => {
    await refuse(op(text, 'content', 'inside'), [
      'target `content` is not empty (it holds 2 components)',
      'use placement `below` with reference_uuid `footer-1` (sdc.demo.footer)',
    ]);
  });

  it('refuses above or below without a reference_uuid, listing the candidates', async () => {
    await refuse(op(text, 'content', 'above'), [
      'placement `above` needs a reference_uuid',
      '(there: section-1, footer-1)',
    ]);
  });

  it('says to use inside when above/below names an empty target', async () => {
    await refusal(
      place,
      { operations: [op(text, 'content', 'below')] },
      ['the target is empty, so use placement `inside`'],
      contextOf(emptyDoc),
    );
  });

  it('refuses a reference_uuid that is not in the target and says where it is', async () => {
    await refuse(op(text, 'content', 'below', 'card-1'), [
      'reference_uuid `card-1` is not in target `content`; it is in `grid-1/items`',
    ]);
  });

  it('refuses a reference_uuid that is nowhere in the layout', async () => {
    await refuse(op(text, 'content', 'below', 'ghost'), [
      'reference_uuid `ghost` is not in target `content`: no component with uuid `ghost`',
    ]);
  });

  it('is all or nothing: a failing later operation leaves no output, and the model is told', async () => {
    const message = await refusal(
      place,
      {
        operations: [
          op(text, 'content', 'below', 'footer-1'),
          op(text, 'content', 'inside'),
          op(text, 'header', 'below', 'hero-1'),
        ],
      },
      ['operations[1]: target `content` is not empty', 'operations after operations[1] were not checked yet'],
      contextOf(documentOf(nestedLayout)),
    );
    assert.ok(!message.includes('operations[0]'));
  });

  it('rejects a layout check against the layout as earlier operations leave it', async () => {
    // The first operation fills the empty region, so `inside` on it is now wrong.
    await refusal(
      place,
      { operations: [op(text), op(text)] },
      ['operations[1]: target `content` is not empty (it holds 1 component)', 'reference_uuid `u1`'],
      contextOf(emptyDoc),
    );
  });
});

describe('place_components on a large page', () => {
  it('returns only what it placed and where, whatever the page size', async () => {
    const components = Array.from({ length: 250 }, (_, i) => ({
      uuid: `row-${i}`,
      component: 'sdc.demo.text',
      props: { body: `Row ${i}` },
    }));
    const document = documentOf({ regions: { content: { components } } });
    const { output, result } = await run(
      place,
      { operations: [op('- sdc.demo.heading: {props: {text: Hello}}', 'content', 'below', 'row-100')] },
      contextOf(document),
    );
    assert.ok(output, result);
    assert.equal(
      result,
      'Placed 1 component. Uuids assigned (use them as reference_uuid, or in targets like "<uuid>/<slot>"):\n' +
        '- sdc.demo.heading: u1 (below row-100 in content)',
    );
  });
});

describe('place_components: the page must still fit a request', () => {
  /** A document of `count` text components in `content`. */
  function pageOf(count: number) {
    const components = Array.from({ length: count }, (_, i) => ({
      uuid: `t${i}`,
      component: 'sdc.demo.text',
      props: { body: 'x', size: 'normal' },
    }));
    return documentOf({ regions: { content: { components } } });
  }
  const texts = (count: number) =>
    Array.from({ length: count }, () => '- sdc.demo.text: {props: {body: y}}').join('\n');

  it(`refuses a placement that would take the page past ${LIMITS.maxLayoutComponents} components, saying how many fit`, async () => {
    const nearlyFull = pageOf(LIMITS.maxLayoutComponents - 5);
    const message = await refusal(
      place,
      { operations: [op(texts(6), 'content', 'below', 't0')] },
      [
        `the page has ${LIMITS.maxLayoutComponents - 5} components and this call places 6`,
        `at most ${LIMITS.maxLayoutComponents}`,
        'Place at most 5 more.',
      ],
      contextOf(nearlyFull),
    );
    assert.ok(message.startsWith('place_components was not applied'));
    const { output } = await run(
      place,
      { operations: [op(texts(5), 'content', 'below', 't0')] },
      contextOf(nearlyFull),
    );
    assert.equal(collectPlacedUuids([output!]).length, 5, 'exactly up to the limit is fine');
  });

  it('counts slot children, and says when the page is full', async () => {
    const full = pageOf(LIMITS.maxLayoutComponents);
    await refusal(
      place,
      { operations: [op('- sdc.demo.text: {props: {body: y}}', 'content', 'below', 't0')] },
      ['this call places 1', 'Place nothing more; tell the user the page is full.'],
      contextOf(full),
    );
    const withSlots = `- sdc.demo.section:\n    slots:\n      content:\n${'        - sdc.demo.text: {props: {body: y}}\n'.repeat(3)}`;
    await refusal(
      place,
      { operations: [op(withSlots, 'content', 'below', 't0')] },
      ['this call places 4'],
      contextOf(pageOf(LIMITS.maxLayoutComponents - 3)),
    );
  });
});

describe('place_components: images the page would fetch', () => {
  const hero = (src: string) =>
    `- sdc.demo.hero:\n    props: {heading: Hi, image: {src: ${JSON.stringify(src)}, alt: x}}`;

  it('refuses a model-chosen image on another site, however it is written: the page would fetch it at once', async () => {
    for (const src of [
      'http://127.0.0.1:9/hero.svg?leak=page-data',
      'https://127.0.0.1:9/card.png',
      '//127.0.0.1:9/x.png',
      '/\\127.0.0.1/x.png',
      '\\\\127.0.0.1\\x.png',
      'https:127.0.0.1:9',
      'HTTPS://evil.example/x.png',
    ]) {
      const message = await refusal(
        place,
        { operations: [op(hero(src))] },
        ["an image must be a path on the page's own site"],
        contextOf(emptyDoc),
      );
      assert.match(message, /is (on )?another site|another site/, src);
    }
  });

  it("takes a path on the page's own site, and an absolute URL on an origin the catalog allows", async () => {
    for (const src of ['assets/cookies-hero.svg', '/images/hero.png', 'attachments/cookie.png', '../up/x.png']) {
      const { output } = await run(place, { operations: [op(hero(src))] }, contextOf(emptyDoc));
      assert.equal(collectPlacedUuids([output!]).length, 1, src);
    }
    const allowing = { ...contextOf(emptyDoc), catalog: { ...catalog, image_origins: ['https://images.example.com'] } };
    const { output } = await run(place, { operations: [op(hero('https://images.example.com/a.png'))] }, allowing);
    assert.equal(collectPlacedUuids([output!]).length, 1);
    await refusal(
      place,
      { operations: [op(hero('https://images.example.com.evil.example/a.png'))] },
      ['or on https://images.example.com'],
      allowing,
    );
  });

  it('keeps links to other sites: a link is followed only when the user clicks it', async () => {
    const button = '- sdc.demo.button: {props: {label: Go, url: "https://other.example/page"}}';
    const { output } = await run(place, { operations: [op(button)] }, contextOf(emptyDoc));
    assert.equal(collectPlacedUuids([output!]).length, 1);
  });
});
