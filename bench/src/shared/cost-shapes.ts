import { createHash } from 'node:crypto';
import type { Layout } from '@canvas-ai/protocol';
import type { ModelReply } from '@canvas-ai/reference-server';
import { benchLayout, uuidAt } from './layout.js';

/**
 * The shapes of the cost group: each request shape (what a client sends) and each model-reply shape (what the fake
 * model answers), built at a size `factor` (1 and 4): the group checks that the server's CPU time grows no faster
 * than what the request or the reply carries (the second security review: work that grows faster than the
 * request). The client builds the turn from a shape; the fake model (cost-server.ts) answers from the same shape.
 */
export interface CostShape {
  name: string;
  kind: 'request' | 'reply';
  description: string;
  /** The page of hop 1 (and of later hops, with the outputs applied). */
  layout(size: CostSize): Layout;
  /** Hop 1's transcript before the user's message (a long conversation), if any. */
  history?(size: CostSize): Array<{ role: 'user' | 'assistant'; text: string }>;
  /** Attachments of hop 1 (PNG bytes), if any. */
  attachments?(size: CostSize): Uint8Array[];
  /** The person's edits before hop 2: the page as the person leaves it. */
  personEdits?(layout: Layout, size: CostSize): Layout;
  /** The model's first decision (later ones answer and end the turn). */
  reply(size: CostSize): ModelReply;
  /** Which hops' server CPU time is measured. */
  measured: readonly number[];
}

/** A shape's size: `factor` (1 or 4) times the profile's `scale` (1 in the full run, a fraction in the tiny one). */
export interface CostSize {
  factor: number;
  scale: number;
}

/** `base × factor × scale`, at least 1. */
function count(base: number, { factor, scale }: CostSize): number {
  return Math.max(1, Math.round(base * factor * scale));
}

/** A page of headings whose uuids are 128 characters (SHA-512 hex), like the pages of the review's G2 attack. */
function longUuidPage(components: number): Layout {
  return {
    regions: {
      content: {
        components: Array.from({ length: components }, (_, n) => ({
          uuid: longUuid(n),
          component: 'sdc.demo.heading',
          props: { text: `Heading ${n}`, level: 2, align: 'left' },
        })),
      },
    },
  };
}

function longUuid(n: number): string {
  return createHash('sha512').update(String(n)).digest('hex');
}

/** The uuids of a bench layout's headings (every component is one of a repeating row; the second is a heading). */
function headingUuids(components: number, wanted: number): string[] {
  const layout = benchLayout(components);
  const uuids = layout.regions
    .content!.components.filter((node) => node.component === 'sdc.demo.heading')
    .map((node) => node.uuid);
  return uuids.slice(0, wanted);
}

const answer = (text = 'Nothing to change.'): ModelReply => ({ text, toolCalls: [] });
const call = (id: string, name: string, input: unknown) => ({ id, name, arguments: JSON.stringify(input) });
const oneEdit = (): ModelReply => ({
  text: 'Editing the hero.',
  toolCalls: [call('call_edit', 'edit_components', { component_edits: `${uuidAt(0)}:\n  heading: Hello` })],
});

/** Markdown-ish narration of about `chars` characters. */
function narration(chars: number): string {
  const line = 'Here is **what I changed** on the page, and why: [the hero](#hero) now says _hello_.\n';
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

/** A YAML `components` list nested `depth` levels deep through the section's slot. */
function nestedSections(depth: number): string {
  let yaml = '';
  for (let level = 0; level < depth; level += 1) {
    const indent = '    '.repeat(level);
    yaml += `${indent}- sdc.demo.section:\n${indent}    slots:\n${indent}      content:\n`;
  }
  return `${yaml}${'    '.repeat(depth)}- sdc.demo.text: {props: {body: deep}}`;
}

/** Every shape of the cost group. */
export const COST_SHAPES: readonly CostShape[] = [
  {
    name: 'hop-1-layout',
    kind: 'request',
    description: 'hop 1 with a page of 2,000 × f components; the model answers',
    layout: (size) => benchLayout(count(2_000, size)),
    reply: () => answer(),
    measured: [1],
  },
  {
    name: 'hop-1-transcript',
    kind: 'request',
    description: 'hop 1 with a transcript of 100 × f messages of 1,000 characters',
    layout: () => benchLayout(10),
    history: (size) =>
      Array.from({ length: count(100, size) }, (_, n) => ({
        role: n % 2 === 0 ? ('user' as const) : ('assistant' as const),
        text: `${n}: ${'words of an earlier message, '.repeat(36)}`.slice(0, 1_000),
      })),
    reply: () => answer(),
    measured: [1],
  },
  {
    name: 'hop-n-apply-results',
    kind: 'request',
    description: 'hop 3 reporting 20 × f applied outputs (1,000 components)',
    layout: () => benchLayout(1_000),
    reply: (size) => ({
      text: 'Retitling the rows.',
      toolCalls: headingUuids(1_000, count(20, size)).map((uuid, n) =>
        call(`call_${n}`, 'edit_components', { component_edits: `${uuid}:\n  text: Row ${n} again` }),
      ),
    }),
    measured: [3],
  },
  {
    name: 'big-layout',
    kind: 'request',
    description: 'hop 2 of a page of 2,500 × f components: one edit, change detection, the stored turn',
    layout: (size) => benchLayout(count(2_500, size)),
    reply: oneEdit,
    measured: [2],
  },
  {
    name: 'attachments',
    kind: 'request',
    description: 'hop 1 with f PNG attachments of 1 MB, the turn stored with them, and hop 2',
    layout: () => benchLayout(10),
    attachments: (size) =>
      Array.from({ length: Math.min(4, size.factor) }, () => {
        const bytes = new Uint8Array(Math.max(64, Math.round(1_000_000 * size.scale)));
        bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        return bytes;
      }),
    reply: oneEdit,
    measured: [1, 2],
  },
  {
    name: 'person-edits',
    kind: 'request',
    description: 'hop 2 after the person retyped 25 × f headings of a 1,000-component page',
    layout: () => benchLayout(1_000),
    personEdits: (layout, size) => {
      const retype = new Set(headingUuids(1_000, count(25, size)));
      const components = layout.regions.content!.components.map((node) =>
        retype.has(node.uuid)
          ? { ...node, props: { ...node.props, text: `${String(node.props.text)} (retyped)` } }
          : node,
      );
      return { regions: { ...layout.regions, content: { components } } };
    },
    reply: oneEdit,
    measured: [2],
  },
  {
    name: 'many-calls',
    kind: 'reply',
    description: 'a reply of 20 × f edit_components calls, executed on hop 2 (1,000 components)',
    layout: () => benchLayout(1_000),
    reply: (size) => ({
      text: 'Retitling the rows.',
      toolCalls: headingUuids(1_000, count(20, size)).map((uuid, n) =>
        call(`call_${n}`, 'edit_components', { component_edits: `${uuid}:\n  text: Row ${n} again` }),
      ),
    }),
    measured: [2],
  },
  {
    name: 'unknown-uuids',
    kind: 'reply',
    description: 'a reply of 10 × f remove_components calls of 5 unknown 128-character uuids each (1,000 components)',
    layout: () => longUuidPage(1_000),
    reply: (size) => ({
      text: 'Removing them.',
      toolCalls: Array.from({ length: count(10, size) }, (_, n) =>
        call(`call_${n}`, 'remove_components', {
          uuids: Array.from({ length: 5 }, (_, k) => {
            const uuid = longUuid(n * 5 + k);
            return `${uuid.slice(0, 60)}${uuid[60] === 'z' ? 'y' : 'z'}${uuid.slice(61)}`;
          }),
        }),
      ),
    }),
    measured: [2],
  },
  {
    name: 'long-narration',
    kind: 'reply',
    description: 'a reply of 20,000 × f characters of markdown narration',
    layout: () => benchLayout(10),
    reply: (size) => answer(narration(count(20_000, size))),
    measured: [1],
  },
  {
    name: 'deep-arguments',
    kind: 'reply',
    description: 'a place_components call of sections nested 3 × f deep',
    layout: () => benchLayout(10),
    reply: (size) => ({
      text: 'Placing nested sections.',
      toolCalls: [
        call('call_place', 'place_components', {
          operations: [
            {
              target: 'content',
              placement: 'below',
              reference_uuid: uuidAt(0),
              components: nestedSections(count(3, size)),
            },
          ],
        }),
      ],
    }),
    measured: [2],
  },
];

/** The user message that names a shape and its size; the fake model reads it back. */
export function costMessage(shape: CostShape, size: CostSize): string {
  return `cost ${shape.name} ${size.factor} ${size.scale}`;
}

/** The shape and size a user message names, if it is one of {@link costMessage}'s. */
export function parseCostMessage(message: string): { shape: CostShape; size: CostSize } | undefined {
  const [word, name, factor, scale] = message.split(' ');
  const shape = COST_SHAPES.find((candidate) => candidate.name === name);
  if (word !== 'cost' || !shape) return undefined;
  return { shape, size: { factor: Number(factor), scale: Number(scale) } };
}
