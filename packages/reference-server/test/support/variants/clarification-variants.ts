// Planted bugs of the clarifications CHANGELOG.md lists: the origin check's place and what "own origin" means
// (spec §4.5), the status of a request without a session (spec §8.6), the field of the map-key budget (spec §13),
// and listing a uuid twice in a removal or a move (spec §12).
import type { ComponentNode, Layout } from '@canvas-ai/protocol';
import type { ModelReply } from '../../../src/providers/model-provider.js';
import { endpointAt } from '../../../src/endpoints.js';
import {
  errorAnswer,
  isHopPost,
  isStatusGet,
  type Json,
  modelWrapper,
  realApp,
  rewriteHopResponses,
  withJson,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The methods that change nothing, which the origin check lets through (spec §4.5). */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The arguments of every tool call the scripted model made, by call id (the scenarios' call ids are unique). */
function recordingModel(calls: Map<string, Json>) {
  return (reply: ModelReply): ModelReply => {
    for (const call of reply.toolCalls) {
      try {
        calls.set(call.id, JSON.parse(call.arguments) as Json);
      } catch {
        // Arguments that are no JSON give no output either.
      }
    }
    return reply;
  };
}

type Operation = { uuids: string[]; target: string; placement: string; reference_uuid?: string };

/** The uuids inside the component `uuid` of a layout, at any depth (its own slots' components). */
function insideOf(layout: Layout | undefined, uuid: string): Set<string> {
  const inside = new Set<string>();
  const collect = (nodes: readonly ComponentNode[], within: boolean): void => {
    for (const node of nodes) {
      if (within) inside.add(node.uuid);
      for (const list of Object.values(node.slots ?? {})) collect(list, within || node.uuid === uuid);
    }
  };
  for (const region of Object.values(layout?.regions ?? {})) collect(region.components, false);
  inside.add(uuid);
  return inside;
}

export const CLARIFICATION_VARIANTS = {
  'paths-before-origin': {
    bug: 'the routes answer before the origin check: a POST of another site to a path that is no endpoint gets 404, telling it what exists',
    breaks: [must('spec §4.5', 'MUST get 403 `origin_not_allowed` whatever')],
    caughtBy: 'origin.refused-first',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const path = new URL(request.url).pathname;
        if (request.headers.has('origin') && !SAFE.has(request.method) && endpointAt(path) === undefined)
          return errorAnswer(404, 'not_found', `Nothing at ${request.method} ${path}.`);
        return next(request);
      }),
  },
  'origin-scheme-compared': {
    bug: "the request's own origin is compared scheme included, so a page behind a TLS-terminating proxy (https Origin, http request) is refused",
    breaks: [must('spec §4.5', 'a server MUST compare it by host name and port only')],
    caughtBy: 'origin.own-origin-any-scheme',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const origin = request.headers.get('origin');
        const url = new URL(request.url);
        if (origin && !SAFE.has(request.method)) {
          const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
          if (parsed && parsed.host === url.host && parsed.protocol !== url.protocol)
            return errorAnswer(403, 'origin_not_allowed', 'Requests from another site may not change anything here.');
        }
        return next(request);
      }),
  },
  'status-without-session-403': {
    bug: 'a status request without a session cookie gets 403 csrf_invalid, as a state change would, instead of 410',
    breaks: [must('spec §8.6', 'A status request without a session')],
    caughtBy: 'status.no-session-410',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (isStatusGet(request) && !request.headers.has('cookie'))
          return errorAnswer(403, 'csrf_invalid', 'No session: fetch a token first.');
        return next(request);
      }),
  },
  'map-keys-field-names-the-key': {
    bug: 'a request over the map-key budget is refused naming the key that went over, not the map it is in',
    breaks: [must('spec §13', '`field` MUST be the path')],
    caughtBy: 'limits.map-keys',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        if (!isHopPost(request) || response.status !== 400) return response;
        const body = (await response.clone().json()) as Json & { message: string; error: Json };
        if (!/keys in all/.test(body.message) || typeof body.error.field !== 'string') return response;
        const map = body.error.field;
        return withJson(response, { ...body, error: { ...body.error, field: `${map}.k1000` } });
      }),
  },
  'remove-lists-uuids-as-named': {
    bug: 'a removal sends the uuids as the model listed them, so one named twice is in the output twice',
    breaks: [must('spec §12', 'A server MUST NOT send a `remove_components` output')],
    caughtBy: 'tools.remove-listed-twice',
    // A host cannot apply the second removal of the same uuid.
    alsoFailing: ['scenario.remove-listed-twice', 'invariants.outputs-apply'],
    build: (fixtures) => {
      const calls = new Map<string, Json>();
      return rewriteHopResponses(
        realApp(fixtures, { model: (scripted) => modelWrapper(scripted, { reply: recordingModel(calls) }) }),
        (body) => ({
          ...body,
          outputs: (body.outputs as Json[]).map((output) => {
            const named = calls.get(output.call_id as string)?.uuids;
            return output.type === 'remove_components' && Array.isArray(named) ? { ...output, uuids: named } : output;
          }),
        }),
      );
    },
  },
  'move-duplicate-collapsed': {
    bug: 'a move that lists a uuid twice in one operation is read as listing it once and executes, instead of being refused',
    breaks: [must('spec §12', 'A uuid listed twice in the `uuids` of one operation')],
    caughtBy: 'tools.move-listed-twice',
    alsoFailing: ['scenario.move-listed-twice', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            reply: (reply) => ({
              ...reply,
              toolCalls: reply.toolCalls.map((call) => {
                if (call.name !== 'move_components') return call;
                const args = JSON.parse(call.arguments) as { operations?: Operation[] };
                for (const operation of args.operations ?? []) operation.uuids = [...new Set(operation.uuids)];
                return { ...call, arguments: JSON.stringify(args) };
              }),
            }),
          }),
      }),
  },
  'move-replaces-last-place': {
    bug: "a move's replaces says where each component was before the last operation that moved it, not before the call",
    breaks: [must('spec §12', '`replaces` MUST give where it was before the call')],
    caughtBy: 'tools.move-replaces-before-the-call',
    alsoFailing: ['scenario.move-twice-in-one-call'],
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as Json[]).map((output) => {
          if (output.type !== 'move_components') return output;
          const at = { ...(output.replaces as Record<string, string>) };
          const replaces: Record<string, string> = {};
          for (const operation of output.operations as Operation[])
            for (const uuid of operation.uuids) {
              replaces[uuid] = at[uuid]!;
              at[uuid] = operation.target;
            }
          return { ...output, replaces };
        }),
      })),
  },
  'move-inside-keeps-reference': {
    bug: 'a move inside a slot passes on the reference_uuid the model gave, which a placement inside never carries',
    breaks: [
      must('spec §12', 'an operation of a `move_components` output with placement `inside`'),
      must('spec §12.3', 'An operation with placement `inside`'),
    ],
    caughtBy: 'tools.placement-rules',
    alsoFailing: ['scenario.move-inside-with-reference'],
    build: (fixtures) => {
      const calls = new Map<string, Json>();
      return rewriteHopResponses(
        realApp(fixtures, { model: (scripted) => modelWrapper(scripted, { reply: recordingModel(calls) }) }),
        (body) => ({
          ...body,
          outputs: (body.outputs as Json[]).map((output) => {
            const asked = calls.get(output.call_id as string)?.operations as Operation[] | undefined;
            if (output.type !== 'move_components' || !asked) return output;
            const operations = (output.operations as Operation[]).map((operation, index) => {
              const reference = asked[index]?.reference_uuid;
              return operation.placement === 'inside' && reference
                ? { ...operation, reference_uuid: reference }
                : operation;
            });
            return { ...output, operations };
          }),
        }),
      );
    },
  },
  'move-into-own-slot-executed': {
    bug: "a move is not checked against the moved components' own slots, so a section moved into a slot of itself is sent as an output",
    breaks: [
      must('spec §11.5', 'Every uuid MUST be in the layout, and the target MUST NOT be a slot of a moved component'),
      must('spec §12', '`remove_components` and `move_components` MUST validate like the others'),
    ],
    caughtBy: 'scenario.move-testimonials-up',
    alsoFailing: ['invariants.outputs-apply', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      refusedMoveSent(fixtures, (operation, layout) =>
        operation.uuids.some((uuid) => insideOf(layout, uuid).has(operation.target.split('/')[0]!)),
      ),
  },
  'move-next-to-a-moved-one-executed': {
    bug: 'a move whose reference_uuid is one of the moved components is sent as an output, the reference looked up before they are taken out',
    breaks: [must('spec §11.5', 'which MUST be in that list and MUST NOT be one of the moved components')],
    caughtBy: 'scenario.move-next-to-itself',
    // A refused call that still sends an output is what the recovery check judges on every scenario.
    alsoFailing: ['invariants.outputs-apply', 'hop-rules.validation-error-recovery'],
    build: (fixtures) =>
      refusedMoveSent(
        fixtures,
        (operation) => operation.reference_uuid !== undefined && operation.uuids.includes(operation.reference_uuid),
      ),
  },
} satisfies Record<string, BrokenVariant>;

/**
 * The real app, with every move the tool refused whose operation `refusedFor` picks (given the layout the hop carried)
 * sent as if it had passed: the check a buggy server skips.
 */
function refusedMoveSent(
  fixtures: Parameters<BrokenVariant['build']>[0],
  refusedFor: (operation: Operation, layout: Layout | undefined) => boolean,
) {
  const calls = new Map<string, Json>();
  /** The outputs added to each hop (`request_id#hop`), so a replay of that hop gets them again. */
  const added = new Map<string, Json[]>();
  /** The calls decided before the hop being answered: only those can have been parked and refused in it. */
  let decided = new Set<string>();
  return rewriteHopResponses(
    realApp(fixtures, { model: (scripted) => modelWrapper(scripted, { reply: recordingModel(calls) }) }),
    (body, sent) => {
      const hop = `${String(sent?.request_id)}#${String(sent?.hop)}`;
      const layout = (sent?.context as { current_layout?: Layout } | undefined)?.current_layout;
      const known = [...added.values()].flat().map((output) => output.call_id);
      const refused =
        added.get(hop) ??
        [...calls.entries()]
          .filter(([callId, args]) => {
            const operations = args.operations as Operation[] | undefined;
            return (
              decided.has(callId) &&
              !known.includes(callId) &&
              !(body.outputs as Json[]).some((output) => output.call_id === callId) &&
              Array.isArray(operations?.[0]?.uuids) &&
              operations.some((operation) => refusedFor(operation, layout))
            );
          })
          .map(([callId, args]) => ({ type: 'move_components', call_id: callId, operations: args.operations }));
      if (sent !== undefined) added.set(hop, refused);
      decided = new Set(calls.keys());
      return refused.length === 0 ? body : { ...body, outputs: [...(body.outputs as Json[]), ...refused] };
    },
  );
}
