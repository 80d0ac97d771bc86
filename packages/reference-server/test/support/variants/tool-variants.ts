// Planted bugs in what a hop answers: narration, max_hops, uuids, the built-in tools, co-editing, scripted mode.
import { type ComponentNode, Layout, type PlaceComponentsOutput, type ToolOutput } from '@canvas-ai/protocol';
import { joinNarration, NARRATION_SEPARATOR } from '@canvas-ai/protocol/server';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import { parseDocument, stringify } from 'yaml';
import type { ModelMessage, StoredToolCall } from '../../../src/providers/model-provider.js';
import {
  isHopPost,
  type Json,
  jsonBody,
  modelWrapper,
  realApp,
  rewriteHopResponses,
  rewriteToolYaml,
  withBody,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

export const TOOL_VARIANTS = {
  'progress-not-accumulated': {
    bug: 'each response carries only the latest narration paragraph instead of the whole turn so far',
    breaks: [must('spec §9', 'A server MUST trim with this set')],
    caughtBy: 'hop-rules.progress-accumulates',
    alsoFailing: ['scenario.*'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({ ...body, progress: lastParagraph(body.progress as string) })),
  },
  'answer-repeated-in-progress': {
    bug: 'the final answer is left at the end of progress as well as sent as message',
    breaks: [must('spec §9', 'A server MUST trim with this set')],
    caughtBy: 'invariants.answer-not-in-progress',
    alsoFailing: ['hop-rules.answer-stripped', 'scenario.*', 'approvals.answer-reaches-model'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) =>
        body.finish_reason === 'answer'
          ? { ...body, progress: joinNarration([body.progress as string, body.message as string]) }
          : body,
      ),
  },
  'max-hops-own-wording': {
    bug: 'a turn that used its max_hops ends with a message of the server’s own wording, not the fixed text',
    breaks: [must('spec §9', 'Servers MUST use this text')],
    caughtBy: 'hop-rules.max-hops',
    alsoFailing: ['scenario.max-hops'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) =>
        body.finish_reason === 'max_hops' ? { ...body, message: 'Stopped: step limit reached.' } : body,
      ),
  },
  'placed-counted-alphabetically': {
    bug: '{{placed.N}} counts a node’s slots in alphabetical order (a serializer that sorts keys), not the catalog’s',
    breaks: [must('spec §10', 'which MUST be a component of that same list')],
    caughtBy: 'hop-rules.uuid-chaining',
    alsoFailing: ['scenario.slot-order'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) => ({
              ...request,
              turn: { ...request.turn, placedUuids: alphabetical(request.messages) },
            }),
          }),
      }),
  },
  'invalid-enum-coerced': {
    bug: 'a prop value outside its enum is replaced by the enum’s first value instead of refusing the call',
    breaks: [must('spec §12', 'Every page-changing tool MUST validate')],
    caughtBy: 'hop-rules.validation-error-recovery',
    alsoFailing: ['scenario.validation-error-recovery'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, { reply: (reply) => rewriteToolYaml(reply, (yaml) => coerceEnums(yaml, fixtures)) }),
      }),
  },
  'parallel-calls-allowed': {
    bug: 'every place_components call of a reply executes: the one-call-at-a-time rule is not applied',
    breaks: [must('spec §12', 'a server MUST give every later call')],
    caughtBy: 'tools.one-call-at-a-time',
    // The calls the fixture expects refused are not.
    alsoFailing: ['scenario.one-call-at-a-time', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      realApp(fixtures, {
        agents: (agents) => {
          agents.agents.page_builder!.tool_settings = { place_components: { allow_parallel: true } };
          return agents;
        },
      }),
  },
  'yaml-1-1': {
    bug: 'tool inputs are read as YAML 1.1: `4:3` is the number 243, `yes` a boolean, a key written twice keeps the last',
    breaks: [
      must('spec §12.1', 'A server MUST read the YAML strings'),
      must('spec §12.1', 'A map MUST NOT hold one key twice'),
    ],
    caughtBy: 'tools.yaml-1-2',
    alsoFailing: ['scenario.yaml-core-schema'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            reply: (reply) =>
              rewriteToolYaml(reply, (yaml) => {
                const document = parseDocument(yaml, { version: '1.1', uniqueKeys: false });
                return document.errors.length > 0 ? yaml : stringify(document.toJS());
              }),
          }),
      }),
  },
  'image-alt-optional': {
    bug: 'an image prop without alt is accepted (alt taken as optional)',
    breaks: [must('spec §12.2', 'A server MUST accept a prop value exactly')],
    caughtBy: 'tools.prop-types',
    // The call the fixture expects refused is not.
    alsoFailing: ['scenario.prop-types', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            reply: (reply) =>
              rewriteToolYaml(reply, (yaml) => (/src:/.test(yaml) && !/alt:/.test(yaml) ? addAlt(yaml) : yaml)),
          }),
      }),
  },
  'defaults-left-out': {
    bug: 'placed components carry only the props the model wrote, not the catalog defaults of the ones it left out',
    breaks: [must('spec §12.3', 'a server MUST send each placed node')],
    caughtBy: 'tools.placed-props',
    alsoFailing: ['scenario.placed-props', 'scenario.slot-order'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as ToolOutput[]).map((output) => withoutDefaults(output, fixtures)),
      })),
  },
  'derived-list-ignored': {
    bug: "a tool ignores the props a node lists as derived (only the catalog's marks are refused)",
    breaks: [must('spec §10.1', 'A server MUST refuse, as any invalid tool input')],
    caughtBy: 'tools.derived-props-never-set',
    // The refused edit's output is also a refused call that produced one.
    alsoFailing: ['scenario.derived-props', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const context = body?.context as Json | undefined;
        const parsed = Layout.safeParse(context?.current_layout);
        // A malformed layout goes on as sent: the server's own answer to it is not this bug.
        if (!body || !context || !parsed.success) return next(request);
        const layout = parsed.data;
        for (const region of Object.values(layout.regions)) region.components = region.components.map(unlisted);
        return next(withBody(request, { ...body, context: { ...context, current_layout: layout } }));
      }),
  },
  'derived-not-listed': {
    bug: 'placed nodes leave out `derived`, so a host without the catalog cannot tell which props it computes',
    breaks: [must('spec §10.1', 'A server MUST send every node it places')],
    caughtBy: 'tools.derived-props-listed',
    alsoFailing: ['scenario.derived-props-listed'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as ToolOutput[]).map((output) =>
          output.type === 'place_components'
            ? {
                ...output,
                operations: output.operations.map((operation) => ({
                  ...operation,
                  components: operation.components.map(unlisted),
                })),
              }
            : output,
        ),
      })),
  },
  'unchanged-props-sent': {
    bug: 'an edit output carries every prop the model named, the ones already holding that value included',
    breaks: [must('spec §12.3', 'a server MUST leave out of `component_updates`')],
    caughtBy: 'tools.edit-changed-props-only',
    alsoFailing: ['scenario.edit-changed-props'],
    build: (fixtures) => {
      const calls = new Map<string, StoredToolCall>();
      const app = realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            reply: (reply) => {
              for (const call of reply.toolCalls) calls.set(call.id, call);
              return reply;
            },
          }),
      });
      return rewriteHopResponses(app, (body, sent) => ({
        ...body,
        outputs: (body.outputs as ToolOutput[]).map((output) => withUnchangedProps(output, calls, sent)),
      }));
    },
  },
  'replaces-dropped': {
    bug: 'edit_components outputs carry no replaces, so a host cannot keep the person’s edits of those props',
    breaks: [must('spec §16.2', 'A server MUST send `replaces` on every `edit_components`')],
    caughtBy: 'coediting.replaces',
    alsoFailing: ['scenario.*'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as Json[]).map(({ replaces, ...output }) =>
          output.type === 'edit_components' ? output : { ...output, ...(replaces === undefined ? {} : { replaces }) },
        ),
      })),
  },
  'page-value-replaces-dropped': {
    bug: 'set_page_value outputs carry no replaces (only edits were given them), so a host cannot keep a title the person retyped',
    breaks: [must('spec §16.2', 'It MUST send `replaces` on every `set_page_value` output')],
    caughtBy: 'coediting.replaces',
    alsoFailing: ['scenario.*'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as Json[]).map(({ replaces, ...output }) =>
          output.type === 'set_page_value' ? output : { ...output, ...(replaces === undefined ? {} : { replaces }) },
        ),
      })),
  },
  'message-matched-exactly': {
    bug: 'scripted mode matches a user message only as written, not trimmed, collapsed and lower-cased',
    breaks: [must('conformance.md §3', "Your server's **scripted mode** MUST:")],
    caughtBy: 'scripted.match-normalized-message',
    build: (fixtures) => {
      const messages = new Set(fixtures.scenarios.map((scenario) => scenario.user_message));
      return realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) =>
              messages.has(request.turn.userMessage)
                ? request
                : { ...request, turn: { ...request.turn, userMessage: `unmatched: ${request.turn.userMessage}` } },
          }),
      });
    },
  },
} satisfies Record<string, BrokenVariant>;

function lastParagraph(progress: string): string {
  return progress.split(NARRATION_SEPARATOR).at(-1) ?? '';
}

/**
 * The uuids the turn placed, read from the results place_components told the model (`- <component>: <uuid> (in
 * <container>)`, one line per component), each node's slots taken in alphabetical order.
 */
function alphabetical(messages: readonly ModelMessage[]): string[] {
  const uuids: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' || message.name !== 'place_components' || !message.content.startsWith('Placed '))
      continue;
    const placed = [...message.content.matchAll(/^\s*- [^:]+: (\S+) \((?:(?:above|below) \S+ )?in (\S+)\)$/gm)].map(
      ([, uuid, container]) => ({
        uuid: uuid!,
        container: container!,
      }),
    );
    const children = (parent: string) =>
      placed
        .filter((node) => node.container.startsWith(`${parent}/`))
        .sort((a, b) => a.container.localeCompare(b.container));
    const visit = (uuid: string): void => {
      uuids.push(uuid);
      for (const child of children(uuid)) visit(child.uuid);
    };
    const inside = new Set(placed.map((node) => node.uuid));
    for (const node of placed) if (!inside.has(node.container.split('/')[0]!)) visit(node.uuid);
  }
  return uuids;
}

/** A node and its slot children without `derived`. */
function unlisted(node: ComponentNode): ComponentNode {
  const { derived: _derived, ...rest } = node;
  const slots =
    node.slots && Object.fromEntries(Object.entries(node.slots).map(([name, list]) => [name, list.map(unlisted)]));
  return { ...rest, ...(slots ? { slots } : {}) };
}

/** The catalog's props of a component, by id. */
function propsOf(fixtures: Fixtures, id: string) {
  return fixtures.catalog.components.find((component) => component.id === id)?.props ?? {};
}

/** Components YAML with every prop outside its enum set to the enum's first value. */
function coerceEnums(yaml: string, fixtures: Fixtures): string {
  const document = parseDocument(yaml);
  const value = document.toJS() as unknown;
  if (!Array.isArray(value)) return yaml;
  const fix = (items: unknown[]): void => {
    for (const item of items) {
      if (item === null || typeof item !== 'object') continue;
      for (const [id, body] of Object.entries(item as Json)) {
        const fields = (body ?? {}) as { props?: Json; slots?: Record<string, unknown[]> };
        for (const [name, prop] of Object.entries(fields.props ?? {})) {
          const allowed = propsOf(fixtures, id)[name]?.enum;
          if (allowed && !allowed.includes(prop as never)) fields.props![name] = allowed[0];
        }
        for (const children of Object.values(fields.slots ?? {})) if (Array.isArray(children)) fix(children);
      }
    }
  };
  fix(value);
  return stringify(value);
}

/** Edit YAML whose images get an empty alt. */
function addAlt(yaml: string): string {
  const value = parseDocument(yaml).toJS() as unknown;
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const record = node as Json;
    if (typeof record.src === 'string' && !('alt' in record)) record.alt = '';
    for (const child of Object.values(record)) walk(child);
  };
  walk(value);
  return stringify(value);
}

/** A place_components output without the props whose value is the catalog default. */
function withoutDefaults(output: ToolOutput, fixtures: Fixtures): ToolOutput {
  if (output.type !== 'place_components') return output;
  const strip = (node: ComponentNode): ComponentNode => {
    const catalog = propsOf(fixtures, node.component);
    const props = Object.fromEntries(
      Object.entries(node.props).filter(
        ([name, value]) => JSON.stringify(catalog[name]?.default) !== JSON.stringify(value),
      ),
    );
    const slots =
      node.slots && Object.fromEntries(Object.entries(node.slots).map(([name, list]) => [name, list.map(strip)]));
    return { ...node, props, ...(slots ? { slots } : {}) };
  };
  const place = output as PlaceComponentsOutput;
  return {
    ...place,
    operations: place.operations.map((operation) => ({ ...operation, components: operation.components.map(strip) })),
  };
}

/** An edit output with the props its call named that the output left out because they did not change. */
function withUnchangedProps(
  output: ToolOutput,
  calls: Map<string, StoredToolCall>,
  sent: Json | undefined,
): ToolOutput {
  const call = calls.get(output.call_id);
  if (output.type !== 'edit_components' || !call) return output;
  const named = parseDocument(
    (JSON.parse(call.arguments) as { component_edits: string }).component_edits,
  ).toJS() as Record<string, Json>;
  const layout = (sent?.context as { current_layout?: Layout } | undefined)?.current_layout;
  const updates = structuredClone(output.component_updates);
  const replaces = structuredClone(output.replaces ?? {});
  for (const [uuid, props] of Object.entries(named)) {
    if (!updates[uuid]) continue;
    for (const [name, value] of Object.entries(props)) {
      if (name in updates[uuid]!) continue;
      updates[uuid]![name] = value as never;
      replaces[uuid] = { ...replaces[uuid], [name]: findProp(layout, uuid, name) };
    }
  }
  return { ...output, component_updates: updates, replaces };
}

function findProp(layout: Layout | undefined, uuid: string, name: string): never {
  const stack: ComponentNode[] = Object.values(layout?.regions ?? {}).flatMap((region) => region.components);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.uuid === uuid) return (node.props[name] ?? null) as never;
    for (const list of Object.values(node.slots ?? {})) stack.push(...list);
  }
  return null as never;
}
