/**
 * The person's own edits since the model's last decision (spec §16.1), as one step of the hop: found by comparing the
 * request's page with the fingerprint the previous hop expected, guarded against (a parked call may not overwrite
 * them), told to the model, and the fingerprint the next request is compared with.
 */
import type { CanvasDocument, JsonValue, Props, ToolOutput } from '@canvas-ai/protocol';
import { findComponentPaths } from '@canvas-ai/protocol';
import {
  type DocumentChange,
  type DocumentDigest,
  diffDocumentStepwise,
  digestDocumentStepwise,
  type KnownValue,
  keepingValuesStepwise,
  type Place,
  quoteJson,
} from '@canvas-ai/protocol/server';
import type { HopRun, ParkedCallsStep } from './hop-run.js';
import type { ServerDeps } from './server-deps.js';

/** What the person changed since the model's last decision, and what follows from it for this hop. */
export interface PersonChanges {
  changes: readonly DocumentChange[];
  /** Refuses a parked call's output that would overwrite one of their edits; undefined when none could. */
  refuseOutput: ((output: ToolOutput) => string | undefined) | undefined;
  /** What the model is told about them; undefined when there were none. */
  notice: PersonChangesNotice | undefined;
  /** Milliseconds spent finding and describing them, for the hop's log line. */
  ms: number;
}

/**
 * Compares the request's page with what the previous hop expected it to be: what differs is the person's doing.
 * Runs before the parked calls change anything. An output the browser rejected is not expected on the page.
 */
export async function detectPersonChanges({
  deps,
  request,
  turn,
  previousOutputs,
  prints,
  requestDigest,
}: Pick<HopRun, 'request' | 'previousOutputs' | 'prints' | 'requestDigest'> & {
  deps: Pick<ServerDeps, 'pause'>;
  turn: Pick<HopRun['turn'], 'expected'>;
}): Promise<PersonChanges> {
  const started = performance.now();
  const document: CanvasDocument = { layout: request.context.current_layout, page: request.context.page };
  const rejectedCalls = new Set(
    (request.apply_results ?? []).filter((result) => result.status === 'rejected').map((result) => result.call_id),
  );
  // In steps with the server's pause between them: hashing a page of large props is no single long step (G3).
  const changes = turn.expected
    ? await diffDocumentStepwise(turn.expected, document, {
        rejected: previousOutputs.filter((output) => rejectedCalls.has(output.call_id)),
        prints,
        now: requestDigest,
        pause: deps.pause,
      })
    : [];
  const notice = personChangesNotice(changes, propsLookup(changes, document));
  return { changes, refuseOutput: overwritesPersonEdit(changes), notice, ms: performance.now() - started };
}

/** The fingerprint of the document the next request should carry (spec §16.1), and how long it took, for the log. */
export async function fingerprintNext(
  { deps, prints, requestDigest }: Pick<HopRun, 'prints' | 'requestDigest'> & { deps: Pick<ServerDeps, 'pause'> },
  step: Pick<ParkedCallsStep, 'document' | 'placedUuids' | 'outputs'>,
): Promise<{ digest: DocumentDigest; ms: number }> {
  const started = performance.now();
  const keepValuesOf = agentsComponents(step);
  // A hop without outputs leaves the request's page as it came: the fingerprint the door built of it is the next one.
  const digest =
    step.outputs.length === 0 && requestDigest
      ? await keepingValuesStepwise(requestDigest, step.document, keepValuesOf, prints, deps.pause)
      : await digestDocumentStepwise(step.document, { keepValuesOf, prints }, deps.pause);
  return { digest, ms: performance.now() - started };
}

/** The components the agent placed this turn or edits in this hop: their short values are worth quoting back. */
function agentsComponents(step: Pick<ParkedCallsStep, 'placedUuids' | 'outputs'>): Set<string> {
  const uuids = new Set(step.placedUuids);
  for (const output of step.outputs) {
    if (output.type === 'edit_components') for (const uuid of Object.keys(output.component_updates)) uuids.add(uuid);
  }
  return uuids;
}

/**
 * The props of the components the person added that their notice lists, from the request's page (the fingerprint
 * keeps no props): one walk that stops once it found them, however many they added.
 */
function propsLookup(changes: readonly DocumentChange[], document: CanvasDocument) {
  const listed = changes
    .slice(0, MAX_LISTED_CHANGES)
    .flatMap((change) => (change.kind === 'added' ? [change.uuid] : []));
  if (listed.length === 0) return undefined;
  const found = findComponentPaths(document.layout, new Set(listed));
  return (uuid: string): Props | undefined => found.get(uuid)?.node.props;
}

/** At most this many changes are listed; the rest are counted (spec §16.1: the report is bounded). */
const MAX_LISTED_CHANGES = 20;
/** A value in the report is cut at this many characters. */
const MAX_VALUE_CHARS = 120;

/** The notice about the person's edits, and whether it tells all of them whole (nothing counted or cut). */
export interface PersonChangesNotice {
  text: string;
  /** False when changes were only counted or a value the model needs was cut: then it needs the whole page. */
  complete: boolean;
}

/**
 * What the model is told about the person's own edits since its last decision (spec §16.1), or undefined when there
 * were none. It says they are the person's, so the model neither takes credit for them nor undoes them. For a
 * component they added, `propsOf` gives its props from the request's page (the fingerprint does not keep them).
 */
function personChangesNotice(
  changes: readonly DocumentChange[],
  propsOf: (uuid: string) => Props | undefined = () => undefined,
): PersonChangesNotice | undefined {
  if (changes.length === 0) return undefined;
  const told = { complete: changes.length <= MAX_LISTED_CHANGES };
  const lines = changes.slice(0, MAX_LISTED_CHANGES).map((change) => `- ${describe(change, propsOf, told)}`);
  if (changes.length > MAX_LISTED_CHANGES) lines.push(`- … and ${changes.length - MAX_LISTED_CHANGES} more changes`);
  return {
    text:
      'While you worked, the person edited the page themselves. These are their changes, not yours. Keep them: do ' +
      'not undo or overwrite them unless the person asks you to, and do not refer to components they removed:\n' +
      lines.join('\n'),
    complete: told.complete,
  };
}

function describe(
  change: DocumentChange,
  propsOf: (uuid: string) => Props | undefined,
  told: { complete: boolean },
): string {
  // The model knows the page from what it was told: a value it is told now must be whole, or it needs the page.
  const now = (json: JsonValue) => {
    const text = quote(json);
    if (text.endsWith('…')) told.complete = false;
    return text;
  };
  const props = (values: Record<string, JsonValue>) =>
    Object.entries(values)
      .map(([name, json]) => `${name}: ${now(json)}`)
      .join(', ');
  switch (change.kind) {
    case 'removed':
      return `removed ${change.uuid} (${change.component}), which was ${place(change.where)}`;
    case 'added': {
      const added = propsOf(change.uuid);
      if (added === undefined) told.complete = false;
      const values = added && Object.keys(added).length > 0 ? ` with ${props(added)}` : '';
      return `added ${change.uuid} (${change.component}) ${place(change.where)}${values}`;
    }
    case 'moved':
      return `moved ${change.uuid} (${change.component}) from ${place(change.from)} to ${place(change.to)}`;
    case 'prop':
      return `${change.uuid} (${change.component}) ${change.prop}: ${value(change.before)} → ${change.after.set && change.after.value !== undefined ? now(change.after.value) : value(change.after)}`;
    case 'props':
      return `${change.uuid} (${change.component}) props changed; now ${props(change.now)}`;
    case 'page':
      return `page field ${change.field}: ${value(change.before)} → ${change.after.set && change.after.value !== undefined ? now(change.after.value) : value(change.after)}`;
  }
}

function place(where: Place): string {
  return `#${where.position} in ${where.target}`;
}

function value(known: KnownValue): string {
  if (!known.set) return '(not set)';
  if (known.value === undefined) return '(its earlier value)';
  return quote(known.value);
}

function quote(json: JsonValue): string {
  return quoteJson(json, MAX_VALUE_CHARS);
}

/**
 * A guard for the calls parked before the person's changes: an output that would set a prop or page field the
 * person changed since the model decided it is refused (its message goes to the model), so their edit is never
 * overwritten by a decision that did not know of it (spec §16.1). The model may decide the edit again, knowing.
 */
function overwritesPersonEdit(
  changes: readonly DocumentChange[],
): ((output: ToolOutput) => string | undefined) | undefined {
  const props = new Map<string, Extract<DocumentChange, { kind: 'prop' }>>();
  const components = new Map<string, Extract<DocumentChange, { kind: 'props' }>>();
  const fields = new Map<string, Extract<DocumentChange, { kind: 'page' }>>();
  const edited = new Map<string, DocumentChange[]>();
  const moved = new Map<string, Extract<DocumentChange, { kind: 'moved' }>>();
  for (const change of changes) {
    if (change.kind === 'prop') props.set(`${change.uuid}\u0000${change.prop}`, change);
    if (change.kind === 'props') components.set(change.uuid, change);
    if (change.kind === 'page') fields.set(change.field, change);
    if (change.kind === 'prop' || change.kind === 'props')
      edited.set(change.uuid, [...(edited.get(change.uuid) ?? []), change]);
    if (change.kind === 'moved') moved.set(change.uuid, change);
  }
  if (props.size === 0 && components.size === 0 && fields.size === 0 && moved.size === 0) return undefined;
  return (output) => {
    const touched: DocumentChange[] =
      output.type === 'edit_components'
        ? Object.entries(output.component_updates).flatMap(([uuid, updates]) => [
            // Which props the person changed is not known for a component the agent had not touched: keep them all.
            ...[components.get(uuid) ?? []].flat(),
            ...Object.keys(updates).flatMap((prop) => props.get(`${uuid}\u0000${prop}`) ?? []),
          ])
        : output.type === 'set_page_value'
          ? [fields.get(output.field) ?? []].flat()
          : output.type === 'remove_components'
            ? // A component the person edited or moved since is their work: a removal decided before would lose it.
              output.uuids.flatMap((uuid) => [...(edited.get(uuid) ?? []), ...[moved.get(uuid) ?? []].flat()])
            : output.type === 'move_components'
              ? output.operations.flatMap((operation) => operation.uuids.flatMap((uuid) => moved.get(uuid) ?? []))
              : [];
    const list = touched;
    if (list.length === 0) return undefined;
    const described = list.map((change) => {
      switch (change.kind) {
        case 'prop':
          return `${change.prop} of ${change.uuid}: ${value(change.before)} → ${value(change.after)}`;
        case 'props':
          return `the props of ${change.uuid}`;
        case 'page':
          return `page field ${change.field}: ${value(change.before)} → ${value(change.after)}`;
        case 'moved':
          return `${change.uuid}, which they moved to ${place(change.to)}`;
        default:
          return describe(change, () => undefined, { complete: true });
      }
    });
    return (
      `Not applied: after you decided this ${output.type} call, the person changed what it would overwrite ` +
      `(${described.join('; ')}). Their edit stays. Do not redo the change unless the person asks for it.`
    );
  };
}
