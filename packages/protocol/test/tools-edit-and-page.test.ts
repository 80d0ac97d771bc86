import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyOutputs, findComponent } from '../src/index.js';
import { setPageValueTool } from '../src/tools/set-page-value.js';
import { editComponentsTool } from '../src/tools/edit-components.js';
import { contextOf, documentOf, nestedLayout, refusal, run } from './support/tools-fixtures.js';

const edit = (component_edits: string) => ({ component_edits });

describe('edit_components', () => {
  it('outputs only the given props per uuid and says what changed, old → new', async () => {
    const { output, result } = await run(
      editComponentsTool,
      edit('hero-1:\n  heading: Fresh every morning\n  theme: dark\ncard-2: {price: "$3.25", body: Chewy.}'),
    );
    assert.deepEqual(output, {
      type: 'edit_components',
      call_id: 'call-1',
      component_updates: {
        'hero-1': { heading: 'Fresh every morning', theme: 'dark' },
        'card-2': { price: '$3.25', body: 'Chewy.' },
      },
      // What each prop held when the tool ran; `null` for a prop that was not set.
      replaces: {
        'hero-1': { heading: 'Crumb & Co.', theme: 'brand' },
        'card-2': { price: '$3.00', body: null },
      },
    });
    assert.equal(
      result,
      'Edited 2 components:\n' +
        "- hero-1 (sdc.demo.hero): heading 'Crumb & Co.' → 'Fresh every morning'; theme 'brand' → 'dark'\n" +
        "- card-2 (sdc.demo.card): price '$3.00' → '$3.25'; body (unset) → 'Chewy.'",
    );
    const after = applyOutputs(documentOf(), [output!]);
    assert.equal(findComponent(after.layout, 'hero-1')?.props.theme, 'dark');
    assert.equal(findComponent(after.layout, 'hero-1')?.props.subheading, 'Cookies baked this morning.');
  });

  it('refuses a call that edits more components than one call edits, before looking at any', async () => {
    const entries = Array.from({ length: 101 }, (_, index) => `card-${index}: {title: x}`).join('\n');
    await refusal(editComponentsTool, edit(entries), ['names 101 components', 'edits at most 100', 'next call']);
  });

  it('edits a component and one inside it in one call, found in one walk of the page', async () => {
    const { output } = await run(
      editComponentsTool,
      edit('card-1: {title: Double chocolate}\nsection-1: {heading: Our ovens}'),
    );
    const after = applyOutputs(documentOf(), [output!]);
    assert.equal(findComponent(after.layout, 'card-1')?.props.title, 'Double chocolate');
    assert.equal(findComponent(after.layout, 'section-1')?.props.heading, 'Our ovens');
  });

  it('sends only the props that change, and no output when nothing does (spec §11, §12)', async () => {
    const mixed = await run(editComponentsTool, edit('card-1: {title: Chocolate chip, price: $4.00}'));
    assert.deepEqual(mixed.output?.type === 'edit_components' && mixed.output.component_updates, {
      'card-1': { price: '$4.00' },
    });
    assert.deepEqual(mixed.output?.type === 'edit_components' && mixed.output.replaces, {
      'card-1': { price: '$3.50' },
    });
    assert.ok(mixed.result.includes("title 'Chocolate chip' (unchanged, not sent)"), mixed.result);
    const same = await run(editComponentsTool, edit('card-1: {title: Chocolate chip}'));
    assert.equal(same.output, undefined);
    assert.match(same.result, /^Nothing changed: every value is already on the page/);
  });

  it('allows parallel calls', () => {
    assert.equal(editComponentsTool.allowParallel, true);
  });

  it('refuses a uuid that is not in the layout, suggesting close ones', async () => {
    await refusal(editComponentsTool, edit('card-3: {title: Snickerdoodle}'), [
      'component_edits.card-3: no component with uuid `card-3` in the layout; did you mean `card-1` or `card-2`?',
    ]);
  });

  it('refuses a prop the component does not have', async () => {
    await refusal(editComponentsTool, edit('text-1: {text: Hello}'), [
      'sdc.demo.text has no prop `text`',
      'Its props are: body, size.',
    ]);
  });

  it('refuses a value of the wrong type or outside the enum', async () => {
    await refusal(editComponentsTool, edit('grid-1: {columns: 5}\nfooter-1: {show_social: "no"}'), [
      '2 problems',
      'component_edits.grid-1: prop `columns` of sdc.demo.grid must be one of 2, 3, 4; got 5',
      'component_edits.footer-1: prop `show_social` of sdc.demo.footer must be a boolean',
    ]);
  });

  it('is all or nothing: one bad edit refuses the whole call', async () => {
    await refusal(editComponentsTool, edit('hero-1: {heading: Fine}\ncard-1: {title: 7}'), [
      'prop `title` of sdc.demo.card must be a string',
    ]);
  });

  it('refuses YAML that is not a map of uuid → props', async () => {
    await refusal(editComponentsTool, edit('- hero-1: {heading: Hi}'), [
      'component_edits must be a YAML map of uuid → changed props',
      'got a list',
    ]);
    await refusal(editComponentsTool, edit('hero-1: Hi'), [
      'component_edits.hero-1: give a map of the props of sdc.demo.hero to change; got a string',
    ]);
    await refusal(editComponentsTool, edit('hero-1: {heading: [Hi'), ['`component_edits` is not valid YAML']);
  });

  it('refuses a component of the layout that is not in the catalog', async () => {
    const layout = structuredClone(nestedLayout);
    layout.regions.content!.components.push({ uuid: 'legacy-1', component: 'old.banner', props: {} });
    await refusal(
      editComponentsTool,
      edit('legacy-1: {title: x}'),
      ['legacy-1 is a `old.banner`, a component the catalog does not have'],
      contextOf(documentOf(layout)),
    );
  });
});

describe('edit_components: images the page would fetch', () => {
  it("refuses an image moved to another site, and takes a path on the page's own", async () => {
    await refusal(editComponentsTool, edit('hero-1: {image: {src: "http://127.0.0.1:9/x.gif?leak=1", alt: x}}'), [
      "src is not a usable image: an image must be a path on the page's own site",
      'http://127.0.0.1:9 is another site',
    ]);
    const { output } = await run(editComponentsTool, edit('hero-1: {image: {src: /images/new.png, alt: x}}'));
    assert.equal(output?.type, 'edit_components');
  });
});

describe('set_page_value', () => {
  it('outputs the field and value and confirms with the old value', async () => {
    const { output, result } = await run(setPageValueTool, { field: 'title', value: 'Crumb & Co. | Cookies' });
    assert.deepEqual(output, {
      type: 'set_page_value',
      call_id: 'call-1',
      field: 'title',
      value: 'Crumb & Co. | Cookies',
      replaces: 'Crumb & Co.',
    });
    assert.equal(result, "Set Page title (`title`) to 'Crumb & Co. | Cookies' (it was 'Crumb & Co.').");
  });

  it('confirms a field that was not set before', async () => {
    const { output, result } = await run(setPageValueTool, { field: 'description', value: 'Cookies.' });
    assert.ok(result.endsWith('(it was not set before).'));
    assert.equal(output?.type === 'set_page_value' && output.replaces, null, 'replaces null: the field was not set');
  });

  it('refuses an unknown field and says which exist', async () => {
    await refusal(setPageValueTool, { field: 'slug', value: 'cookies' }, [
      'the page has no field `slug`; the fields you can set are: title (Page title), description (Meta description)',
    ]);
  });

  it('refuses a value that is not a string', async () => {
    await refusal(setPageValueTool, { field: 'title', value: { text: 'x' } }, [
      'the value of `title` must be a string; got a map',
    ]);
  });

  it('says so when the site configures no page fields', async () => {
    await refusal(setPageValueTool, { field: 'title', value: 'x' }, ['no page fields are configured'], {
      ...contextOf(),
      pageFields: [],
    });
  });
});
