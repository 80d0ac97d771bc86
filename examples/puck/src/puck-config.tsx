// The Puck config: the catalog's components (fixtures/catalog.yaml), each a Puck component of the same name, so the
// person can drag them in from Puck's own list and edit their props in Puck's own fields.
import type { Config } from '@puckeditor/core';

/** The props of each component, as Puck keeps them (Puck adds `id`, the uuid the agent sees). */
export interface Components {
  Hero: { title: string; description: string; anchor: string };
  Text: { text: string };
  Button: { label: string; href: string };
}

/** The page's own fields (Puck's root): the page values the agent sets (`set_page_value`). */
export interface RootProps {
  title: string;
}

/**
 * The props Puck computes itself (each component's `resolveData`), by component: derived props (spec §10.1), listed
 * on every node the agent is sent and marked `derived: true` in the catalog, so neither the agent nor the person's
 * change detection ever counts them.
 */
export const DERIVED: Readonly<Record<string, readonly string[]>> = { Hero: ['anchor'] };

/**
 * A component's computed props from its others. Puck's `resolveData` uses it, and so does the glue for what the
 * agent places or edits: Puck runs `resolveData` on its own inserts and field edits, not on `setData`.
 */
export function computeProps(component: string, props: Record<string, unknown>): Record<string, string> {
  return component === 'Hero' ? { anchor: anchorOf(String(props.title ?? '')) } : {};
}

/** The hero's anchor on the page (`#mill-lane-bakery`), from its title. */
function anchorOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export const config: Config<Components, RootProps> = {
  root: {
    fields: { title: { type: 'text', label: 'Page title' } },
    render: ({ children }) => <div className="page">{children}</div>,
  },
  components: {
    Hero: {
      label: 'Hero',
      fields: { title: { type: 'text' }, description: { type: 'textarea' }, anchor: { type: 'text' } },
      defaultProps: { title: 'Heading', description: '', anchor: 'heading' },
      resolveData: ({ props }) => ({ props: { ...props, ...computeProps('Hero', props) }, readOnly: { anchor: true } }),
      render: ({ title, description, anchor }) => (
        <section className="hero" id={anchor}>
          <h1>{title}</h1>
          <p>{description}</p>
        </section>
      ),
    },
    Text: {
      label: 'Text',
      fields: { text: { type: 'textarea' } },
      defaultProps: { text: 'Text' },
      render: ({ text }) => <p className="text">{text}</p>,
    },
    Button: {
      label: 'Button',
      fields: { label: { type: 'text' }, href: { type: 'text' } },
      defaultProps: { label: 'Button', href: '#' },
      render: ({ label, href }) => (
        <a className="button" href={href}>
          {label}
        </a>
      ),
    },
  },
};
