import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { boundedText } from './text.js';
import { ID_PATTERN, NAME_PATTERN } from './constants.js';

export { PROTOCOL_VERSION, TARGET_PATTERN } from './constants.js';

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
