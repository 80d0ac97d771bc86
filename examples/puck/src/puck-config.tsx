// The Puck config: the catalog's components (fixtures/catalog.yaml), each a Puck component of the same name, so the
// person can drag them in from Puck's own list and edit their props in Puck's own fields.
import type { Config } from '@puckeditor/core';

/** The props of each component, as Puck keeps them (Puck adds `id`, the uuid the agent sees). */
export interface Components {
  Hero: { title: string; description: string };
  Text: { text: string };
  Button: { label: string; href: string };
}

/** The page's own fields (Puck's root): the page values the agent sets (`set_page_value`). */
export interface RootProps {
  title: string;
}

export const config: Config<Components, RootProps> = {
  root: {
    fields: { title: { type: 'text', label: 'Page title' } },
    render: ({ children }) => <div className="page">{children}</div>,
  },
  components: {
    Hero: {
      label: 'Hero',
      fields: { title: { type: 'text' }, description: { type: 'textarea' } },
      defaultProps: { title: 'Heading', description: '' },
      render: ({ title, description }) => (
        <section className="hero">
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
