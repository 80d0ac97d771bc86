// Planted bugs in the outputs a hop sends, one per MUST row of the matrix that had no variant of its own: the targets
// and uuids a host applies them to (spec §11), the output types (spec §12), required props (spec §12.2).
import type { ComponentNode, Layout, ToolOutput } from '@canvas-ai/protocol';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import { parseDocument, stringify } from 'yaml';
import { type Json, modelWrapper, realApp, rewriteHopResponses, rewriteToolYaml } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

type Node = ComponentNode;

/** Every place_components operation of a response rewritten by `change`. */
function rewritePlacements(body: Json, change: (operation: Json) => Json): Json {
  return {
    ...body,
    outputs: (body.outputs as Json[]).map((output) =>
      output.type === 'place_components'
        ? { ...output, operations: (output.operations as Json[]).map(change) }
        : output,
    ),
  };
}

/** Placed uuids made from the component's short name and a count that starts again with every response. */
function countedUuids(body: Json): Json {
  let count = 0;
  const rename = (node: Node): Node => ({
    ...node,
    uuid: `${node.component.split('.').at(-1)}-${++count}`,
    ...(node.slots
      ? { slots: Object.fromEntries(Object.entries(node.slots).map(([name, list]) => [name, list.map(rename)])) }
      : {}),
  });
  return rewritePlacements(body, (operation) => ({
    ...operation,
    components: (operation.components as Node[]).map(rename),
  }));
}

/** The required props of a catalog component, by id. */
function requiredProps(fixtures: Fixtures, id: string): string[] {
  const props = fixtures.catalog.components.find((component) => component.id === id)?.props ?? {};
  return Object.entries(props)
    .filter(([, prop]) => prop.required === true)
    .map(([name]) => name);
}

/** Components YAML with every required prop the model left out set to the empty string. */
function fillRequired(yaml: string, fixtures: Fixtures): string {
  const value = parseDocument(yaml).toJS() as unknown;
  if (!Array.isArray(value)) return yaml;
  const fill = (items: unknown[]): void => {
    for (const item of items) {
      if (item === null || typeof item !== 'object') continue;
      for (const [id, body] of Object.entries(item as Json)) {
        const fields = (body ?? {}) as { props?: Json; slots?: Record<string, unknown[]> };
        for (const name of requiredProps(fixtures, id)) {
          fields.props ??= {};
          if (!(name in fields.props)) fields.props[name] = '';
        }
        (item as Json)[id] = fields;
        for (const children of Object.values(fields.slots ?? {})) if (Array.isArray(children)) fill(children);
      }
    }
  };
  fill(value);
  return stringify(value);
}

/** The uuids of the components inside `uuid` (in its slots, at any depth) in a layout. */
function nestedIn(layout: Layout | undefined, uuid: string): string[] {
  const found: string[] = [];
  const walk = (nodes: readonly Node[], inside: boolean): void => {
    for (const node of nodes) {
      if (inside) found.push(node.uuid);
      for (const list of Object.values(node.slots ?? {})) walk(list, inside || node.uuid === uuid);
    }
  };
  for (const region of Object.values(layout?.regions ?? {})) walk(region.components, false);
  return found;
}

export const OUTPUT_ROW_VARIANTS = {
  'removal-lists-nested-components': {
    bug: 'a removal lists every component inside the removed ones after them, which are gone with their parent by their turn',
    breaks: [must('spec §11.4', 'Each uuid MUST be in the layout when its turn comes')],
    caughtBy: 'scenario.remove-testimonials',
    alsoFailing: ['scenario.*', 'invariants.outputs-apply', 'approvals.answer-reaches-model'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body, sent) => {
        const layout = (sent?.context as { current_layout?: Layout } | undefined)?.current_layout;
        return {
          ...body,
          outputs: (body.outputs as Json[]).map((output) => {
            if (output.type !== 'remove_components') return output;
            const uuids = output.uuids as string[];
            return { ...output, uuids: [...uuids, ...uuids.flatMap((uuid) => nestedIn(layout, uuid))] };
          }),
        };
      }),
  },
  'placement-region-as-labelled': {
    bug: "a placement's region is sent capitalised, as the catalog's region label reads ('Content'), not by its id",
    breaks: [must('spec §11.1', 'the region (it MUST exist in `regions`)')],
    caughtBy: 'invariants.outputs-apply',
    // Every scenario that places something, and the rules judged on them.
    alsoFailing: ['scenario.*', 'hop-rules.uuid-chaining', 'hop-rules.validation-error-recovery', 'tools.*'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) =>
        rewritePlacements(body, (operation) => {
          const target = operation.target as string;
          return target.includes('/')
            ? operation
            : { ...operation, target: target[0]!.toUpperCase() + target.slice(1) };
        }),
      ),
  },
  'placed-uuids-counted-per-response': {
    bug: 'placed components get uuids of their short name and a count that starts again with every response (hero-1), so they collide with what the page holds',
    breaks: [must('spec §11.1', 'Every uuid in `components`, at any depth, MUST be new to the layout')],
    caughtBy: 'invariants.outputs-apply',
    alsoFailing: ['scenario.*', 'hop-rules.uuid-chaining'],
    build: (fixtures) => rewriteHopResponses(realApp(fixtures), countedUuids),
  },
  'edit-names-region-and-uuid': {
    bug: 'an edit output names each component as region:uuid (how the server indexes them) instead of by its uuid',
    breaks: [must('spec §11.2', 'For each uuid (it MUST be in the layout, at any depth)')],
    caughtBy: 'invariants.outputs-apply',
    alsoFailing: ['scenario.*', 'hop-rules.*', 'tools.*', 'coediting.replaces'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as Json[]).map((output) => {
          if (output.type !== 'edit_components') return output;
          const prefixed = (record: Json | undefined) =>
            record && Object.fromEntries(Object.entries(record).map(([uuid, props]) => [`content:${uuid}`, props]));
          return {
            ...output,
            component_updates: prefixed(output.component_updates as Json),
            ...(output.replaces ? { replaces: prefixed(output.replaces as Json) } : {}),
          };
        }),
      })),
  },
  'removal-sent-as-delete-components': {
    bug: 'a removal is sent as an output of type delete_components (the name of the server’s own function), no v1 type',
    breaks: [must('spec §12', 'An output MUST be one of the v1 types')],
    caughtBy: 'schemas.hop-responses',
    alsoFailing: ['scenario.*', 'tools.remove-listed-twice', 'approvals.answer-reaches-model'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as ToolOutput[]).map((output) =>
          output.type === 'remove_components' ? { ...output, type: 'delete_components' } : output,
        ),
      })),
  },
  'required-prop-filled-empty': {
    bug: 'a component placed without a required prop gets the empty string for it instead of the call being refused',
    breaks: [must('spec §12.2', 'A placed component MUST be given every `required` prop')],
    caughtBy: 'tools.prop-types',
    alsoFailing: ['scenario.prop-types', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            reply: (reply) => ({
              ...reply,
              toolCalls: reply.toolCalls.map((call) =>
                call.name === 'place_components'
                  ? rewriteToolYaml({ ...reply, toolCalls: [call] }, (yaml) => fillRequired(yaml, fixtures))
                      .toolCalls[0]!
                  : call,
              ),
            }),
          }),
      }),
  },
} satisfies Record<string, BrokenVariant>;
