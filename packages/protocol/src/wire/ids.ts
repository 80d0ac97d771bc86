import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { boundedText } from './text.js';

/** The protocol version every request and response names (spec §14). */
export const PROTOCOL_VERSION = 'canvas-ai/1';

// The character rules, written once: the schemas below, the placement target and the parser's fast path
// (layout/plain-layout.ts) all build on them.
const ID_CHAR = '[A-Za-z0-9._:-]';
const NAME = '[A-Za-z_][A-Za-z0-9_-]*';

/** The allowed characters of ids that end up in store keys and URLs: request ids, component uuids, catalog ids. */
export const ID_PATTERN = new RegExp(`^${ID_CHAR}+$`);

/** A slot or region name: a letter or `_` first, then letters, digits, `_` and `-`. */
export const NAME_PATTERN = new RegExp(`^${NAME}$`);

/** A placement target: a region name, or `<parent_uuid>/<slot_name>` (a uuid is at most 128 characters). */
export const TARGET_PATTERN = new RegExp(`^(?:${NAME}|${ID_CHAR}{1,128}/${NAME})$`);

/**
 * The turn id: 1–128 characters of `[A-Za-z0-9._:-]`, not `.` or `..`, the same on every hop of one turn. It is a
 * path segment of `DELETE /api/hop/{request_id}`, where URL normalization drops a dot segment (`/api/hop/..` is
 * `/api/`): such a turn could never be cancelled.
 */
export const RequestId = withMeta(
  z
    .string()
    .check(
      z.minLength(1, 'request_id must not be empty'),
      z.maxLength(128, 'request_id must be at most 128 characters'),
      z.regex(ID_PATTERN, 'request_id may only contain A-Z a-z 0-9 . _ : -'),
      z.regex(/^(?!\.\.?$)/, 'request_id may not be . or .. (a URL would drop it as a dot segment)'),
    ),
  { id: 'RequestId', description: 'The turn id: the same on every hop of one turn.' },
);
export type RequestId = z.infer<typeof RequestId>;

/** A component instance id. Assigned by the server on placement; never contains `/` (targets use it). */
export const ComponentUuid = withMeta(
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(128),
      z.regex(ID_PATTERN, 'a component uuid may only contain A-Z a-z 0-9 . _ : -'),
    ),
  { id: 'ComponentUuid', description: 'A component instance id, assigned by the server when it is placed.' },
);
export type ComponentUuid = z.infer<typeof ComponentUuid>;

/** A catalog component id such as `sdc.demo.hero`. */
export const ComponentId = z
  .string()
  .check(z.minLength(1), z.maxLength(200), z.regex(ID_PATTERN, 'a component id may only contain A-Z a-z 0-9 . _ : -'));
export type ComponentId = z.infer<typeof ComponentId>;

/** A slot or region name: a plain identifier. */
export const SlotName = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(100),
    z.regex(NAME_PATTERN, 'a slot or region name is an identifier: letters, digits, _ and -'),
  );
export type SlotName = z.infer<typeof SlotName>;

/** An agent id from the agents config. */
export const AgentId = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(100),
    z.regex(/^[A-Za-z0-9._-]+$/, 'an agent id may only contain A-Z a-z 0-9 . _ -'),
  );
export type AgentId = z.infer<typeof AgentId>;

/** The id of one tool call, chosen by the model (or the provider); links an output to its apply result. */
export const CallId = boundedText(200).check(z.minLength(1));
export type CallId = z.infer<typeof CallId>;
