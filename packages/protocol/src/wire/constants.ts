// The protocol's fixed names, patterns and lists, and the target parser on them, in a module without zod: a client's bundle
// that uses only these holds none of the schemas. The schema modules re-export what belongs to them.

/** The protocol version every request and response names (spec §14). */
export const PROTOCOL_VERSION = 'canvas-ai/1';

// The character rules, written once: the schemas of ./ids.ts, the placement target and the parser's fast path
// (layout/plain-layout.ts) all build on them.
const ID_CHAR = '[A-Za-z0-9._:-]';
const NAME = '[A-Za-z_][A-Za-z0-9_-]*';

/** The allowed characters of ids that end up in store keys and URLs: request ids, component uuids, catalog ids. */
export const ID_PATTERN = new RegExp(`^${ID_CHAR}+$`);

/** A slot or region name: a letter or `_` first, then letters, digits, `_` and `-`. */
export const NAME_PATTERN = new RegExp(`^${NAME}$`);

/** A placement target: a region name, or `<parent_uuid>/<slot_name>` (a uuid is at most 128 characters). */
export const TARGET_PATTERN = new RegExp(`^(?:${NAME}|${ID_CHAR}{1,128}/${NAME})$`);

/** The header that carries the CSRF token on every `POST` and `DELETE` (spec §4.2). */
export const CSRF_HEADER = 'X-CSRF-Token';

/** The media type a client asks for (`Accept`) and a streaming server answers with (spec §6.1). */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

/** The `type` of every output of the protocol (spec §11). */
export const TOOL_OUTPUT_TYPES = [
  'place_components',
  'edit_components',
  'set_page_value',
  'remove_components',
  'move_components',
] as const;

/** The output types every version 1 host applies: a server may send them to any client (spec §11). */
export const REQUIRED_OUTPUT_TYPES = ['place_components', 'edit_components', 'set_page_value'] as const;

/**
 * The output types a server sends only to a client that declared it applies them in `capabilities.outputs`
 * (revision 1.2, spec §5.1).
 */
export const DECLARED_OUTPUT_TYPES = ['remove_components', 'move_components'] as const;
export type DeclaredOutputType = (typeof DECLARED_OUTPUT_TYPES)[number];

/** At most this many props of one node are derived (spec §10.1). */
export const MAX_DERIVED_PROPS = 100;

/** A parsed placement target. */
export type ParsedTarget = { kind: 'region'; region: string } | { kind: 'slot'; parentUuid: string; slot: string };

/** Splits a placement target into a region or a parent's slot. */
export function parseTarget(target: string): ParsedTarget {
  const slash = target.indexOf('/');
  if (slash === -1) return { kind: 'region', region: target };
  return { kind: 'slot', parentUuid: target.slice(0, slash), slot: target.slice(slash + 1) };
}
