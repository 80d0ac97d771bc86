import type { ErrorCode } from '../wire/errors.js';
import type { LIMITS } from '../wire/limits.js';

/** The HTTP operations of the protocol, by a short name. */
export type Operation = 'hop' | 'cancel' | 'status' | 'agents' | 'token' | 'health' | 'admin';

/** What one error code means to a client, and which operations may answer with it. */
export interface ErrorCodeDoc {
  /** When a server uses the code (one or two sentences for the spec's table). */
  when: string;
  /** The operations whose OpenAPI responses list it; empty for codes about the routing itself. */
  operations: readonly Operation[];
}

/**
 * The spec's words for every error code. Typed against ERROR_STATUS, so a new code does not typecheck until it is
 * described here; `pnpm spec` then puts it in the OpenAPI document and in hop-protocol.md's table.
 */
export const ERROR_CODE_DOCS: Record<ErrorCode, ErrorCodeDoc> = {
  invalid_json: {
    when: 'The body (or the `request` part of a multipart body) is not valid JSON, or is empty.',
    operations: ['admin', 'hop'],
  },
  invalid_request: {
    when:
      'The body is JSON but breaks a rule: not an object, a field of the wrong type or out of range, an id with characters ' +
      'outside its pattern, a forbidden key (`__proto__`, `constructor`, `prototype`) anywhere, JSON nested too deep, ' +
      "a layout over the component limit or holding a uuid twice, hop 1 whose last message is not the user's, a " +
      'multipart body that cannot be read. ' +
      '`field` names the first offending field.',
    operations: ['admin', 'hop', 'cancel', 'status'],
  },
  missing_field: {
    when:
      'A required field is absent; `field` names it (for example `request_id`, `messages` on hop 1, or the `request` ' +
      'part of a multipart body).',
    operations: ['hop'],
  },
  unsupported_protocol: {
    when: '`protocol` is present but is not the version this server speaks (`canvas-ai/1`).',
    operations: ['hop'],
  },
  unknown_agent: {
    when: "Hop 1 of a new turn names an agent that is neither the main agent nor one offered by `GET /api/agents` (a hop of a turn the server holds keeps the turn's agent, spec §12.4).",
    operations: ['hop'],
  },
  attachment_rejected: {
    when:
      'An attachment is not a PNG, JPEG, WebP or GIF by its first bytes, or is larger than the per-file limit; there ' +
      'are more files than allowed; or attachments come with a hop other than 1.',
    operations: ['hop'],
  },
  unauthorized: {
    when:
      'A request of the optional admin surface (spec §19) without the admin credential, or with a wrong one. Nothing ' +
      'changed; the session cookie and the CSRF token are not a credential there.',
    operations: ['admin'],
  },
  csrf_invalid: {
    when:
      'The `X-CSRF-Token` header is missing, or is not a token `GET /api/token` issued for this session (or it has ' +
      'expired); or the request has no session the server minted, or carries the session cookie more than once.',
    operations: ['hop', 'cancel', 'status', 'token'],
  },
  origin_not_allowed: {
    when:
      "A `POST` or `DELETE` carries an `Origin` that is neither the origin of the request's own host nor one the " +
      'server allows (a page of another site); any request of the admin surface (spec §19) that carries an `Origin` ' +
      'other than its own. Nothing changed.',
    operations: ['admin', 'hop', 'cancel'],
  },
  not_found: {
    when: 'No endpoint at this path.',
    operations: [],
  },
  method_not_allowed: {
    when: 'The path exists but not with this HTTP method.',
    operations: [],
  },
  request_timeout: {
    when:
      'The request body did not arrive within the time the server allows for it (a client on a stalled connection). ' +
      'Nothing changed; the same request may be sent again.',
    operations: ['hop'],
  },
  agent_changed: {
    when: "A hop after the first names a different agent than the turn's first hop (absent means the main agent).",
    operations: ['hop'],
  },
  hop_in_progress: {
    when:
      'Another hop of the same turn is still executing. Nothing changed; the client may send the same hop again ' +
      'after `Retry-After` seconds (revision 1.4).',
    operations: ['hop'],
  },
  hop_out_of_order: {
    when:
      'The hop number is neither the next hop of the turn nor a repeat of its latest hop (for example hop 4 after ' +
      'hop 2, or hop 1 again for a turn that already moved on).',
    operations: ['hop'],
  },
  turn_not_found: {
    when:
      'A hop after the first names a turn the server does not hold: never started, expired, cancelled, failed, ' +
      'started in another session, or ended (a hop past its last one, or any hop once its replay window is over). ' +
      'Also the status of such a turn (`GET /api/hop/{request_id}`).',
    operations: ['hop', 'status'],
  },
  payload_too_large: {
    when: 'The body is larger than the body limit; answered before the body is parsed.',
    operations: ['hop'],
  },
  unsupported_media_type: {
    when: 'The `Content-Type` is neither `application/json` nor `multipart/form-data`.',
    operations: ['hop'],
  },
  host_not_allowed: {
    when:
      'The `Host` of the request is not a name the server answers to (by default the loopback names when it is ' +
      "bound to loopback): a page whose own name resolves to the server's address (DNS rebinding). Nothing changed.",
    operations: ['admin', 'hop', 'cancel', 'agents', 'token', 'health'],
  },
  quota_exceeded: {
    when:
      'The session (or the client address) holds as many turns, or as many stored bytes, as the server allows it. ' +
      'Nothing changed; `Retry-After` says when the oldest of them expires, and a finished or cancelled turn frees ' +
      'its share sooner. On the admin surface (spec §19): too many requests from one client address.',
    operations: ['admin', 'hop'],
  },
  internal_error: {
    when: "The server failed while executing the hop (a tool crashed, a bug). The turn's state is deleted.",
    operations: ['admin', 'hop', 'cancel', 'status', 'agents', 'token', 'health'],
  },
  provider_error: {
    when: "The model provider failed or answered something unusable. The turn's state is deleted.",
    operations: ['hop'],
  },
  store_unavailable: {
    when: 'The turn store cannot be reached. Nothing changed; the client may retry later.',
    operations: ['admin', 'hop', 'cancel', 'status'],
  },
  server_busy: {
    when:
      'The server holds as many request bodies in memory as it allows at once, or as much turn state as it allows ' +
      'in all (a new turn). Nothing changed; the client may retry after `Retry-After` seconds.',
    operations: ['hop'],
  },
};

/** What one size limit bounds and which error exceeding it gets. */
export interface LimitDoc {
  what: string;
  exceeded: string;
}

/** The spec's words for every size limit; typed against LIMITS like {@link ERROR_CODE_DOCS}. */
export const LIMIT_DOCS: Record<keyof typeof LIMITS, LimitDoc> = {
  maxBodyBytes: {
    what: 'Bytes of one multipart request body (hop 1 with attachments).',
    exceeded: '413 `payload_too_large`, before parsing',
  },
  maxJsonBodyBytes: {
    what: 'Bytes of one JSON request body, and of the `request` part of a multipart body.',
    exceeded: '413 `payload_too_large`, before parsing',
  },
  messageChars: { what: "Characters of one message's `text`.", exceeded: '400 `invalid_request`' },
  maxMessages: { what: "Messages in hop 1's `messages`.", exceeded: '400 `invalid_request`' },
  maxLayoutComponents: {
    what: 'Components in `context.current_layout`, counted through every slot.',
    exceeded: '400 `invalid_request`',
  },
  maxJsonDepth: {
    what: 'Nesting depth of objects and arrays anywhere in a request.',
    exceeded: '400 `invalid_request`',
  },
  maxJsonValues: {
    what: 'JSON values (scalars, objects and arrays) in one request.',
    exceeded: '400 `invalid_request`',
  },
  maxJsonValuesOutsideLayout: {
    what: "JSON values outside `context.current_layout` (messages, page, extra, apply_results); also in one tool call's arguments.",
    exceeded: '400 `invalid_request` (a tool call: a readable error for the model)',
  },
  mapThresholdKeys: {
    what: 'An object with more keys than this is a *map* for `maxMapKeys`.',
    exceeded: '(a threshold, not a limit)',
  },
  maxMapKeys: {
    what: 'Keys of all maps of one request, summed (a map of 200 keys counts 200).',
    exceeded: '400 `invalid_request`, before the JSON is decoded',
  },
  maxMultipartParts: {
    what: 'Parts of one multipart body, counting parts the server ignores.',
    exceeded: '400 `invalid_request`',
  },
  maxPartHeaderBytes: {
    what: 'Bytes of the header block of one multipart part.',
    exceeded: '400 `invalid_request`',
  },
  maxAttachments: { what: 'Attachments on hop 1.', exceeded: '400 `attachment_rejected`' },
  maxAttachmentBytes: { what: 'Bytes of one attachment.', exceeded: '400 `attachment_rejected`' },
  maxHopNumber: {
    what: 'The largest `hop` a request may carry (turns end far earlier, at `max_hops`).',
    exceeded: '400 `invalid_request`',
  },
  maxOutputsPerHop: {
    what: "Outputs in one response, and so entries in one request's `apply_results`.",
    exceeded: '400 `invalid_request` (a server never sends more)',
  },
};
