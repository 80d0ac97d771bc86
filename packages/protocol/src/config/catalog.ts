import * as z from 'zod';
import { ComponentId, SlotName } from '../wire/ids.js';
import { JsonValue, SafeKey } from '../wire/json.js';

/** The value type of a component prop. `image` is `{src, alt}`; `text` is a multi-line string. */
export const PropType = z
  .enum(['string', 'text', 'url', 'number', 'integer', 'boolean', 'image'])
  .meta({ id: 'PropType' });
export type PropType = z.infer<typeof PropType>;

/** One prop of a catalog component: its type, constraints and help for the model. */
export const PropDefinition = z
  .object({
    type: PropType,
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean().default(false),
    enum: z
      .array(z.union([z.string(), z.number()]))
      .min(1)
      .optional(),
    default: z.optional(JsonValue),
    examples: z.array(JsonValue).optional(),
    derived: z.boolean().optional().meta({
      description:
        'The host computes this prop from others (spec §10.1): the agent never sets it; never required, no default.',
    }),
  })
  .superRefine((prop, ctx) => {
    for (const message of derivedPropProblems(prop)) ctx.addIssue({ code: 'custom', path: ['derived'], message });
  })
  .meta({ id: 'PropDefinition' });
export type PropDefinition = z.infer<typeof PropDefinition>;

/**
 * Why a prop definition cannot be derived as it stands (spec §10.1), one line per problem; none when it can. The
 * schema and `createApp` (a catalog given as an object) both ask it: the agent could not give a required derived
 * prop, and a default would be a value the host did not compute.
 */
export function derivedPropProblems(prop: Pick<PropDefinition, 'derived' | 'required' | 'default'>): string[] {
  if (!prop.derived) return [];
  const problems: string[] = [];
  if (prop.required) problems.push('a derived prop cannot be required (spec §10.1)');
  if (prop.default !== undefined) problems.push('a derived prop cannot have a default (spec §10.1)');
  return problems;
}

/** One slot of a catalog component: a named place for child components. */
export const SlotDefinition = z
  .object({
    title: z.string().optional(),
    description: z.string().optional(),
    /** Component ids allowed in the slot; absent means any. */
    allowed: z.array(ComponentId).optional(),
  })
  .meta({ id: 'SlotDefinition' });
export type SlotDefinition = z.infer<typeof SlotDefinition>;

/** A component of the design system the agent builds with. */
export const CatalogComponent = z
  .object({
    id: ComponentId,
    name: z.string().min(1),
    description: z.string().min(1),
    category: z.string().optional(),
    props: z.record(SafeKey, PropDefinition).default({}),
    slots: z.record(SlotName, SlotDefinition).default({}),
  })
  .meta({ id: 'CatalogComponent' });
export type CatalogComponent = z.infer<typeof CatalogComponent>;

/** An origin an image may come from: `https://images.example.com` (scheme, host and port only). */
const ImageOrigin = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
    } catch {
      return false;
    }
  }, 'an image origin is a scheme, host and optional port, like https://images.example.com')
  .transform((value) => value.replace(/\/$/, ''));

/** The component catalog: every component an agent may place (the fixtures ship `catalog.yaml`). */
export const Catalog = z
  .object({
    components: z.array(CatalogComponent).min(1),
    /**
     * Origins an image prop's `src` may name besides the page's own (spec §12): an image is fetched as soon as
     * the page shows it, so a model-chosen URL on any host would send out whatever the model put in it. Default:
     * none (relative paths only).
     */
    image_origins: z
      .array(ImageOrigin)
      .default([])
      .meta({ description: "Origins an image `src` may name besides the page's own; default none." }),
  })
  .superRefine((catalog, ctx) => {
    const seen = new Set<string>();
    catalog.components.forEach((component, index) => {
      if (seen.has(component.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['components', index, 'id'],
          message: `duplicate component id "${component.id}"`,
        });
      }
      seen.add(component.id);
    });
  })
  .meta({ id: 'Catalog', description: 'The design system: components, their props and slots.' });
export type Catalog = z.infer<typeof Catalog>;
