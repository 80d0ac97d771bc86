import type { ComponentNode, Layout } from '@canvas-ai/protocol';

/** The uuid of every bench layout's first component: the bench turn places its paragraphs below it. */
export const ANCHOR_UUID = '00000000-0000-4000-8000-000000000000';

/** A deterministic UUID-shaped id (36 characters, like the server's `crypto.randomUUID()`). */
export function uuidAt(index: number): string {
  return `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/**
 * A page-builder layout of exactly `count` components (slot children counted), built from the demo catalog's
 * components with props of ordinary length, so bytes per component resemble a real page: a hero, then repeating
 * rows of heading, text, a grid of three cards and a button. The first component's uuid is {@link ANCHOR_UUID}.
 */
export function benchLayout(count: number): Layout {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`a bench layout needs at least one component, not ${count}`);
  let next = 0;
  const node = (component: string, props: ComponentNode['props'], slots?: ComponentNode['slots']): ComponentNode => {
    const built: ComponentNode = { uuid: uuidAt(next), component, props };
    next += 1;
    if (slots) built.slots = slots;
    return built;
  };
  const components: ComponentNode[] = [
    node('sdc.demo.hero', {
      heading: 'Crumb & Co.',
      subheading: 'Cookies baked by hand every morning, with real butter and good chocolate.',
      cta_label: 'Order now',
      cta_url: '/order',
      theme: 'brand',
      align: 'center',
    }),
  ];
  for (let row = 1; next < count; row += 1) {
    const left = count - next;
    if (left >= 5) {
      // A grid and its three cards: four components.
      const grid = node('sdc.demo.grid', { columns: 3 }, { items: [] });
      for (let card = 1; card <= 3; card += 1) {
        grid.slots!.items!.push(
          node('sdc.demo.card', {
            title: `Cookie ${row}.${card}`,
            body: 'Baked this morning, with butter from the farm down the road.',
            price: '$3.50',
            link_label: 'Add to box',
            link_url: `/order?item=${row}-${card}`,
          }),
        );
      }
      components.push(node('sdc.demo.heading', { text: `Row ${row}`, level: 2, align: 'left' }), grid);
    } else if (left >= 2) {
      components.push(
        node('sdc.demo.heading', { text: `Row ${row}`, level: 2, align: 'left' }),
        node('sdc.demo.text', {
          body: `Paragraph ${row}: small batches, real butter, delivered warm to your door.`,
          size: 'normal',
        }),
      );
    } else {
      components.push(node('sdc.demo.button', { label: 'See the menu', url: '/menu', variant: 'primary' }));
    }
  }
  return { regions: { content: { components } } };
}
