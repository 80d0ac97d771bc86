import { html, nothing, type TemplateResult } from 'lit';
import type { ComponentNode, JsonValue } from '@canvas-ai/protocol';

/** Renders a node's slot children; provided by the canvas so selection and highlight work at every depth. */
export type RenderChildren = (nodes: readonly ComponentNode[] | undefined, slot: string) => TemplateResult;

type View = (props: Record<string, JsonValue>, children: RenderChildren, node: ComponentNode) => TemplateResult;

const str = (value: JsonValue | undefined, fallback = ''): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;

/**
 * An image prop `{src, alt}`; a broken or missing image shows its alt text on a warm placeholder. The page's URL is
 * never sent with it (`no-referrer`), and the server's content security policy loads images from the page's own
 * origin only: the server refuses a model's off-site image, and a host's own still cannot carry the page away.
 */
function image(value: JsonValue | undefined, className: string): TemplateResult | typeof nothing {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return nothing;
  const src = str(value.src);
  const alt = str(value.alt, 'Image');
  return html`<figure class="img ${className}" data-alt=${alt}>
    ${src ? html`<img src=${src} alt=${alt} referrerpolicy="no-referrer" @error=${(e: Event) => (e.target as HTMLElement).remove()} />` : nothing}
  </figure>`;
}

/** One view per catalog component id: each looks like what it is (a hero like a hero, a card like a card). */
export const componentViews: Record<string, View> = {
  'sdc.demo.hero': (p) => html`<section class="c-hero theme-${str(p.theme, 'light')} align-${str(p.align, 'center')}">
    <div class="c-hero__copy">
      <h1>${str(p.heading)}</h1>
      ${p.subheading ? html`<p class="c-hero__sub">${str(p.subheading)}</p>` : nothing}
      ${p.cta_label ? html`<a class="btn btn-primary" href=${str(p.cta_url, '#')} @click=${prevent}>${str(p.cta_label)}</a>` : nothing}
    </div>
    ${image(p.image, 'c-hero__image')}
  </section>`,
  'sdc.demo.heading': (p) => {
    const level = Number(p.level ?? 2);
    const text = str(p.text);
    const cls = `c-heading align-${str(p.align, 'left')}`;
    // The anchor is derived (spec §10.1): the editor computes it from the text, so a link can point at the heading.
    const id = str(p.anchor) || nothing;
    if (level === 1) return html`<h1 class=${cls} id=${id}>${text}</h1>`;
    if (level === 3) return html`<h3 class=${cls} id=${id}>${text}</h3>`;
    if (level === 4) return html`<h4 class=${cls} id=${id}>${text}</h4>`;
    return html`<h2 class=${cls} id=${id}>${text}</h2>`;
  },
  'sdc.demo.text': (p) => html`<p class="c-text size-${str(p.size, 'normal')}">${str(p.body)}</p>`,
  'sdc.demo.image': (p) => html`<div class="c-image ratio-${str(p.ratio, '16:9').replace(':', '-')}">
    ${image(p.image, 'c-image__frame')} ${p.caption ? html`<p class="c-image__caption">${str(p.caption)}</p>` : nothing}
  </div>`,
  'sdc.demo.button': (p) =>
    html`<a class="btn btn-${str(p.variant, 'primary')}" href=${str(p.url, '#')} @click=${prevent}>${str(p.label)}</a>`,
  'sdc.demo.card': (p) => html`<article class="c-card">
    ${image(p.image, 'c-card__image')}
    <div class="c-card__body">
      <h3>${str(p.title)}</h3>
      ${p.price ? html`<span class="c-card__price">${str(p.price)}</span>` : nothing}
      ${p.body ? html`<p>${str(p.body)}</p>` : nothing}
      ${p.link_label ? html`<a href=${str(p.link_url, '#')} @click=${prevent}>${str(p.link_label)} →</a>` : nothing}
    </div>
  </article>`,
  'sdc.demo.two_column': (
    p,
    children,
    node,
  ) => html`<div class="c-columns ratio-${str(p.ratio, '50-50')} gap-${str(p.gap, 'medium')}">
    <div class="c-columns__col">${children(node.slots?.left, 'left')}</div>
    <div class="c-columns__col">${children(node.slots?.right, 'right')}</div>
  </div>`,
  'sdc.demo.sidebar': (p, children, node) => html`<div class="c-columns c-sidebar aside-${str(p.side, 'right')}">
    <div class="c-columns__col c-sidebar__main">${children(node.slots?.main, 'main')}</div>
    <aside class="c-columns__col c-sidebar__aside">${children(node.slots?.aside, 'aside')}</aside>
  </div>`,
  'sdc.demo.grid': (p, children, node) => html`<div class="c-grid" style="--columns: ${Number(p.columns ?? 3)}">
    ${children(node.slots?.items, 'items')}
  </div>`,
  'sdc.demo.section': (p, children, node) => html`<section class="c-section bg-${str(p.background, 'none')}">
    ${p.heading ? html`<h2>${str(p.heading)}</h2>` : nothing} ${p.intro ? html`<p class="c-section__intro">${str(p.intro)}</p>` : nothing}
    ${children(node.slots?.content, 'content')}
  </section>`,
  'sdc.demo.testimonial': (p) => html`<blockquote class="c-testimonial">
    <p class="c-testimonial__stars" aria-label="${Number(p.rating ?? 5)} out of 5">${'★'.repeat(Number(p.rating ?? 5))}</p>
    <p>“${str(p.quote)}”</p>
    <footer>— ${str(p.author)}${p.role ? html`, <span>${str(p.role)}</span>` : nothing}</footer>
  </blockquote>`,
  'sdc.demo.footer': (p) => html`<footer class="c-footer">
    <strong>${str(p.business_name)}</strong>
    ${p.address ? html`<span>${str(p.address)}</span>` : nothing} ${p.email ? html`<span>${str(p.email)}</span>` : nothing}
    ${p.show_social ? html`<span class="c-footer__social">◎ ◉ ◍</span>` : nothing}
    <small>${str(p.copyright)}</small>
  </footer>`,
};

/** A component the demo has no view for still shows up, with its id and props. */
export const unknownView: View = (p, children, node) => html`<div class="c-unknown">
  <code>${node.component}</code>
  <pre>${JSON.stringify(p, null, 2)}</pre>
  ${Object.entries(node.slots ?? {}).map(([slot, nodes]) => children(nodes, slot))}
</div>`;

function prevent(event: Event): void {
  event.preventDefault();
}
