/**
 * The MUST → check matrix (spec/conformance.md §6): every MUST or MUST NOT sentence of spec/hop-protocol.md (and of
 * scripted mode, conformance.md §3) with either the kit checks that observe it or the reason no request can. Each
 * row belongs to a rule group; the reference server's planted-bug suite plants one bug per group that has checks,
 * and the check that catches it must be one of the group's. A test holds this list to the documents: every MUST
 * sentence is matched by exactly one row (by section and a quote of it), and every row by one sentence.
 */
export interface MustRow {
  /** `conformance.md` for scripted mode; the protocol otherwise. */
  document?: 'conformance.md';
  /** The section number the sentence is in. */
  section: string;
  /** A quote of the sentence, enough to find it. */
  says: string;
  /** The rule group (planted bugs are counted per group). */
  group: string;
  /** The checks (ids or families such as `validation.*`) that observe it. */
  checks?: readonly string[];
  /** Why no request can observe it, and who tests it instead. */
  reason?: string;
}

/** The client kit (spec/conformance.md §7) sees a client through its requests and the two files its adapter writes. */
const CLIENT_KIT =
  'the client kit (spec/conformance.md §7) judges a client by the requests it makes, the page it holds ({out}) and the text it shows ({shown})';
/** The person's own act in the editor, which no scripted turn can make happen. */
const PERSONS_ACT = (what: string) =>
  `${CLIENT_KIT}; ${what} is the person's act in the editor, outside any turn and without a request, which each editor offers its own way (a button, a shortcut, its own history), so the adapter contract has no act for it`;
const PROMPT =
  "what the model is told cannot be observed over HTTP; the reference server's tests read the prompt (packages/reference-server/test/model-context.test.ts, coediting.test.ts)";

const CONFIGURED_ORIGINS =
  "the kit does not know which origins a deployment lists (it checks only that an origin nobody lists gets nothing, cors.unlisted-origin); the reference server's tests cover it (packages/reference-server/test/cors.test.ts), and a browser runs a turn that way (packages/demo-editor/test/cross-origin.test.ts)";
const LOCK_TIMING =
  "needs a hop that outlives its lock, a matter of timing the kit cannot arrange over HTTP; the reference server's tests cover it with a fake clock and across two instances (packages/reference-server/test/lock-fencing.test.ts)";
const WORK_BOUND =
  "what a request costs the server is time and memory, not an answer: a bounded and an unbounded server answer alike; the protocol's tests cover the bounds (packages/protocol/test/json-bounds.test.ts) and pnpm bench measures the stall (bench/README.md, attack bodies)";

const ADMIN_SURFACE =
  "the admin surface is optional (spec §19) and opened by the operator's token, which the kit is not given; the reference server's tests cover it over HTTP: off without a token, 401 without or with a wrong one or with the session cookie and CSRF token alone, the constant-time compare, 403 from another origin (packages/reference-server/test/agent-settings.test.ts)";

const WORK_GROWTH =
  "how the server's work grows with a request is CPU time, not an answer: a linear and a quadratic server answer alike, and the kit does not time servers; pnpm bench measures it (bench/README.md, cost growth: each request and model-reply shape at 1× and 4× its size)";

/** The scenarios in which the person changes, between two hops, what a parked call of each kind would overwrite. */
const PARKED_GUARD = [
  'scenario.coedit-edit-after-person',
  'scenario.coedit-title-after-person',
  'scenario.coedit-remove-after-person',
  'scenario.coedit-move-after-person',
];

export const MUST_MATRIX: readonly MustRow[] = [
  // spec §2 A turn, step by step
  {
    section: '2',
    says: 'Each call MUST see the document with the outputs of the earlier calls',
    group: 'parking',
    checks: ['hop-rules.outputs-in-next-hop', 'invariants.outputs-apply', 'scenario.*'],
  },
  {
    section: '2',
    says: 'A response that ends the turn MUST NOT carry outputs',
    group: 'final-no-outputs',
    checks: ['invariants.final-no-outputs', 'hop-rules.final-no-outputs'],
  },
  {
    section: '2',
    says: 'The client MUST NOT send hop N+1 before',
    group: 'client',
    checks: ['client.one-at-a-time', 'client.hop-numbers'],
  },
  {
    section: '2',
    says: 'The client MUST use the uuids the server assigned',
    group: 'client',
    checks: ['client.document-fresh'],
  },
  // spec §3 Endpoints
  { section: '3', says: 'A 405 MUST carry an `Allow` header', group: 'methods', checks: ['door.method-not-allowed'] },
  {
    section: '3',
    says: '`HEAD` on a `GET` endpoint MUST be answered as the `GET` would be',
    group: 'methods',
    checks: ['door.head'],
  },
  {
    section: '3.1',
    says: 'A server that sends one MUST give two different',
    group: 'agents-etag',
    reason:
      "the agents of a server change only by its operator (its config, or an admin surface), which the kit does not hold; the reference server's tests change them and compare the versions (packages/reference-server/test/agent-settings.test.ts)",
  },
  {
    section: '3.1',
    says: 'It MUST answer a `GET` whose `If-None-Match`',
    group: 'agents-etag',
    checks: ['agents.etag'],
  },
  // spec §4 Transport
  {
    section: '4.1',
    says: 'A hop MUST be sent with `Content-Type: application/json`',
    group: 'content-type',
    checks: ['validation.content-type-is-text-plain'],
  },
  {
    section: '4.1',
    says: 'a server MUST accept them as such',
    group: 'content-type',
    checks: [
      'validation.content-type-with-a-charset-parameter-parameters-are-ignored',
      'validation.content-type-in-capitals-media-types-ignore-case',
    ],
  },
  {
    section: '4.2',
    says: 'Every key the server stores a turn under MUST include the session',
    group: 'sessions',
    checks: ['turn-rules.other-session-410'],
  },
  {
    section: '4.2',
    says: 'so they MUST carry the header `X-CSRF-Token`',
    group: 'csrf',
    checks: [
      'csrf.missing-header',
      'csrf.wrong-token',
      'csrf.other-session-token',
      'csrf.no-session',
      'csrf.cancel-needs-token',
    ],
  },
  {
    section: '4.2',
    says: 'The client MUST send the session cookie with every request',
    group: 'client',
    checks: ['client.session'],
  },
  {
    section: '4.2',
    says: 'MUST set it with a `Path` that covers every endpoint',
    group: 'cookie',
    checks: ['csrf.cookie-reaches-endpoints', 'csrf.unknown-cookie'],
  },
  {
    section: '4.2',
    says: 'A session id MUST be one the server minted',
    group: 'sessions',
    checks: ['csrf.unknown-cookie'],
  },
  {
    section: '4.2',
    says: 'Served over HTTPS, the cookie MUST be `Secure`',
    group: 'cookie',
    reason:
      "observable only over HTTPS, and the kit's runs are over loopback HTTP; the reference server's tests cover it (packages/reference-server/test/sessions.test.ts)",
  },
  {
    section: '4.3',
    says: 'The server MUST check every file by its first bytes',
    group: 'attachments',
    checks: [
      'attachments.judged-by-bytes',
      'attachments.too-large',
      'validation.multipart-attachment-that-is-not-an-image-by-its-bytes',
      'validation.multipart-with-more-than-4-attachments',
      'validation.multipart-attachments-part-that-is-a-text-field',
    ],
  },
  {
    section: '4.3',
    says: 'Later hops MUST be sent as JSON',
    group: 'attachments',
    checks: ['validation.multipart-attachments-on-hop-2', 'client.attachments-hop-1', 'client.screenshot-attachment'],
  },
  {
    section: '4.3',
    says: 'a server MUST read it as it reads the same request sent as JSON',
    group: 'attachments',
    checks: ['validation.multipart-hop-2-without-attachments-is-read-like-json-here-an-unknown-turn'],
  },
  // spec §4.5 Hosts, origins and response headers
  {
    section: '4.5',
    says: 'a server MUST answer only the host names it is meant to serve',
    group: 'hosts',
    checks: ['hosts.other-host-refused'],
  },
  {
    section: '4.5',
    says: 'MUST by default answer only the loopback names',
    group: 'hosts',
    checks: ['hosts.other-host-refused'],
  },
  { section: '4.5', says: 'The error MUST NOT echo the host.', group: 'hosts', checks: ['hosts.other-host-refused'] },
  {
    section: '4.5',
    says: 'nor one the server allows MUST be refused with 403 `origin_not_allowed`',
    group: 'origins',
    checks: ['origin.cross-site-refused'],
  },
  {
    section: '4.5',
    says: 'a server MUST compare it by host name and port only, never by scheme',
    group: 'origins',
    checks: ['origin.own-origin-any-scheme', 'origin.own-origin-by-port'],
  },
  {
    section: '4.5',
    says: 'MUST get 403 `origin_not_allowed` whatever its path, method, session, token and body',
    group: 'origins',
    checks: ['origin.refused-first'],
  },
  {
    section: '4.5',
    says: 'MUST NOT serve dotfiles or follow symlinks out of its folder',
    group: 'hosts',
    reason:
      "static files are outside the protocol's endpoints, and a server need not serve any; the reference server's tests cover it (packages/reference-server/test/origins.test.ts)",
  },
  // spec §4.6 Clients on another origin
  {
    section: '4.6',
    says: 'A server that serves pages of other origins MUST name them exactly',
    group: 'cors',
    reason: CONFIGURED_ORIGINS,
  },
  { section: '4.6', says: 'It MUST NOT grant `*`', group: 'cors', checks: ['cors.unlisted-origin'] },
  { section: '4.6', says: 'For a listed origin the server MUST answer 204', group: 'cors', reason: CONFIGURED_ORIGINS },
  {
    section: '4.6',
    says: 'A preflight from an origin that is not listed MUST NOT get `Access-Control-Allow-Origin`',
    group: 'cors',
    checks: ['cors.unlisted-origin'],
  },
  {
    section: '4.6',
    says: 'Every response to a request whose `Origin` is listed, errors included, MUST carry',
    group: 'cors',
    reason: CONFIGURED_ORIGINS,
  },
  {
    section: '4.6',
    says: 'A response to a request of an origin that is not listed MUST NOT carry',
    group: 'cors',
    checks: ['cors.unlisted-origin'],
  },
  // spec §4.7 Trace context (revision 1.4)
  {
    section: '4.7',
    says: 'A server MUST NOT refuse a request for its `traceparent` or `tracestate`',
    group: 'trace-context',
    checks: ['trace.malformed-ignored'],
  },
  {
    section: '4.7',
    says: 'A server that answers preflights',
    group: 'cors',
    reason: CONFIGURED_ORIGINS,
  },
  // spec §5 The hop request
  {
    section: '5',
    says: "the last one MUST be the user's current message",
    group: 'validation',
    checks: ['validation.last-message-not-from-the-user', 'validation.messages-missing-on-hop-1'],
  },
  {
    section: '5',
    says: 'MUST be the same on every hop of the turn',
    group: 'agent',
    checks: ['turn-rules.agent-changed-409'],
  },
  {
    section: '5',
    says: 'A server MUST tell the model about every rejected output',
    group: 'model-context',
    reason: PROMPT,
  },
  {
    section: '5',
    says: "the next request's `context` MUST show the document as it really is",
    group: 'client',
    checks: ['client.document-fresh'],
  },
  {
    section: '5',
    says: '`"hop": 1.0` is the integer 1 and a server MUST accept it',
    group: 'validation',
    checks: [
      'validation.integer-written-with-fraction',
      'validation.hop-is-true',
      'validation.request-id-is-null-present-so-not-missing',
      'validation.protocol-is-a-number',
    ],
  },
  {
    section: '5',
    says: 'a server MUST refuse a malformed `messages` on hop 2',
    group: 'validation',
    checks: ['validation.messages-malformed-on-hop-2-validated-although-ignored'],
  },
  // spec §5.1 Capabilities
  {
    section: '5.1',
    says: "A server MUST NOT send an output of a type the turn's client did not declare",
    group: 'capabilities',
    checks: ['capabilities.undeclared-not-offered'],
  },
  // spec §6 The hop response
  {
    section: '6',
    says: 'A client MUST apply them in order',
    group: 'client',
    checks: ['client.document-fresh', 'client.apply-results'],
  },
  // spec §6.1 Streamed hops (revision 1.4)
  {
    section: '6.1',
    says: 'A server MUST answer a hop whose `Accept` does not name',
    group: 'stream',
    checks: ['stream.json-without-accept'],
  },
  {
    section: '6.1',
    says: "a client MUST tell the two apart by the answer's `Content-Type`",
    group: 'client',
    checks: ['client.content-type'],
  },
  {
    section: '6.1',
    says: 'A server that streams MUST answer 200 with `Content-Type: application/x-ndjson',
    group: 'stream',
    checks: ['stream.content-type'],
  },
  {
    section: '6.1',
    says: 'Every line MUST be one JSON object of the `HopStreamLine` schema',
    group: 'stream',
    checks: ['stream.lines-valid'],
  },
  {
    section: '6.1',
    says: 'The `outputs` line MUST come before any `text` line',
    group: 'stream',
    checks: ['stream.outputs-first'],
  },
  {
    section: '6.1',
    says: 'A stream MUST end with exactly one `response` or `error` line',
    group: 'stream',
    checks: ['stream.one-final-line'],
  },
  {
    section: '6.1',
    says: "The `response` line's `response` MUST be the response this hop gets as JSON",
    group: 'stream',
    checks: ['stream.response-equals-json'],
  },
  {
    section: '6.1',
    says: 'A request refused before its hop runs',
    group: 'stream',
    checks: ['stream.refusal-is-json'],
  },
  {
    section: '6.1',
    says: 'that asks for a stream MUST get exactly one line',
    group: 'stream',
    checks: ['stream.replay-one-line'],
  },
  {
    section: '6.1',
    says: "A client MUST apply the `outputs` line's outputs when the line arrives",
    group: 'client',
    checks: ['client.outputs-line-applied'],
  },
  // spec §6.2 Usage (revision 1.4)
  {
    section: '6.2',
    says: 'The `turn` counts of a response MUST be the sums of the `hop` counts',
    group: 'usage',
    checks: ['invariants.usage-sums'],
  },
  { section: '6.2', says: 'a client MUST NOT require it', group: 'client', checks: ['client.usage-optional'] },
  // spec §7 Errors
  {
    section: '7',
    says: 'Clients MUST branch on `error.code`',
    group: 'client',
    checks: ['client.branches-on-code'],
  },
  {
    section: '7',
    says: 'A client that meets a code it does not know MUST act on the HTTP status class',
    group: 'client',
    checks: ['client.unknown-code'],
  },
  {
    section: '7',
    says: 'A server MUST send `progress: ""` on every error except',
    group: 'error-progress',
    checks: ['turn-rules.refusal-carries-no-narration', 'cancel.during-hop', 'turn-rules.failed-hop-keeps-narration'],
  },
  {
    section: '7',
    says: 'A server MUST name these fields',
    group: 'validation',
    checks: ['validation.*', 'cancel.invalid-id-400', 'validation.unknown-agent'],
  },
  {
    section: '7',
    says: 'MUST change nothing: the turn it names',
    group: 'turn-rules',
    checks: [
      'turn-rules.out-of-order-409',
      'turn-rules.agent-changed-409',
      'turn-rules.earlier-hop-409',
      'turn-rules.other-session-410',
    ],
  },
  {
    section: '7',
    says: "MUST delete the turn's state, so a failed turn never resumes",
    group: 'failure',
    checks: ['turn-rules.failed-turn-gone'],
  },
  {
    section: '7',
    says: 'A server MUST answer with the first problem in this order',
    group: 'validation',
    checks: [
      'validation.two-faults-the-first-field-in-schema-order-is-named',
      'validation.hop-1-without-messages-and-a-page-that-is-a-string-fields-before-the-hop-1-rules',
      'validation.a-forbidden-key-and-a-wrong-type-the-key-scan-comes-before-the-fields',
      'validation.protocol-missing-and-a-forbidden-key-the-bounds-come-with-json-before-protocol',
      'validation.two-forbidden-keys-the-first-in-document-order-is-named',
    ],
  },
  {
    section: '7',
    says: 'a server MUST NOT put a secret in it',
    group: 'error-secrets',
    reason:
      "the kit cannot know a server's secrets or its upstream addresses; the reference server's tests cover it (packages/reference-server/test/openai-compatible.test.ts, reliability-faults.test.ts)",
  },
  {
    section: '7',
    says: 'A client MUST show `message` as plain text',
    group: 'client',
    checks: ['client.shown-as-text'],
  },
  {
    section: '7.1',
    says: 'tools reading configs) MUST:',
    group: 'tolerance',
    checks: ['validation.unknown-fields-ignored', 'validation.*'],
  },
  {
    section: '7.1',
    says: 'a request MUST NOT contain the keys `__proto__`',
    group: 'tolerance',
    checks: [
      'validation.proto-key-in-context-extra-prototype-pollution',
      'validation.constructor-key-in-component-props-prototype-pollution',
      'validation.proto-at-the-top-level-prototype-pollution',
      'limits.json-depth',
    ],
  },
  // spec §8 Turn state
  {
    section: '8',
    says: 'Before executing a hop a server MUST apply these rules, in this order',
    group: 'turn-rules',
    checks: [
      'turn-rules.concurrent-hop-409',
      'turn-rules.concurrent-later-hop',
      'turn-rules.unknown-turn-410',
      'turn-rules.agent-changed-409',
      'turn-rules.ended-turn-410',
      'turn-rules.out-of-order-409',
      'turn-rules.earlier-hop-409',
      'cancel.restart-410',
    ],
  },
  { section: '8', says: 'it MUST outlast the longest hop the server lets run', group: 'locks', reason: LOCK_TIMING },
  {
    section: '8',
    says: "every write of the turn's state MUST be fenced by the lock",
    group: 'locks',
    reason: LOCK_TIMING,
  },
  { section: '8', says: 'A hop that finds its lock lost MUST save nothing', group: 'locks', reason: LOCK_TIMING },
  { section: '8.1', says: 'The client MUST stop the turn', group: 'client', checks: ['client.stops-on-410'] },
  {
    section: '8.3',
    says: 'a 409 `hop_in_progress` MUST carry a `Retry-After` header',
    group: 'turn-rules',
    checks: ['turn-rules.concurrent-hop-409', 'turn-rules.concurrent-later-hop'],
  },
  {
    section: '8.2',
    says: 'The server MUST answer it with the stored response of that hop',
    group: 'replay',
    checks: ['replay.same-response', 'replay.tools-not-executed-again'],
  },
  {
    section: '8.2',
    says: 'It MUST NOT retry after `provider_error`',
    group: 'client',
    checks: ['client.no-retry-after-failure', 'client.repeat-after-loss'],
  },
  {
    section: '8.5',
    says: 'its parked calls MUST NOT execute',
    group: 'cancel',
    checks: ['cancel.running-turn', 'cancel.restart-410', 'cancel.unknown-id-idempotent'],
  },
  {
    section: '8.5',
    says: 'The hop in flight MUST NOT deliver its result',
    group: 'cancel-during-hop',
    checks: ['cancel.during-hop'],
  },
  {
    section: '8.6',
    says: "A server that offers it MUST answer, for a turn of the caller's session",
    group: 'status',
    checks: [
      'status.unknown-410',
      'status.invalid-id-400',
      'status.finished',
      'status.active',
      'status.cancelled-410',
      'status.other-session-410',
      'schemas.status-responses',
    ],
  },
  {
    section: '8.6',
    says: 'The endpoint is read-only: it MUST NOT change the turn',
    group: 'status',
    checks: ['status.active'],
  },
  {
    section: '8.6',
    says: 'a server MUST answer such a turn as gone (410 `turn_not_found`)',
    group: 'status',
    reason:
      "needs a status request while hop 1 runs, and a scripted hop 1 answers in milliseconds: the kit cannot hold a server's model; the reference server's tests hold hop 1's model call and ask (packages/reference-server/test/turn-status.test.ts)",
  },
  {
    section: '8.6',
    says: 'A status request without a session',
    group: 'status',
    checks: ['status.no-session-410'],
  },
  {
    section: '8.6',
    says: 'The endpoint MUST NOT mint a session for it',
    group: 'status',
    checks: ['status.no-session-410'],
  },
  {
    section: '8.7',
    says: 'Cancelling a finished turn answers `cancelled: false` and MUST leave it replayable',
    group: 'after-the-turn',
    checks: ['cancel.finished-turn-stays'],
  },
  {
    section: '8.7',
    says: 'The marker MUST outlive every hop of the turn that may still be running',
    group: 'cancel-during-hop',
    checks: ['cancel.during-hop', 'cancel.restart-410'],
  },
  // spec §8.8 Quotas
  {
    section: '8.8',
    says: 'a server MUST bound what one client can hold',
    group: 'quotas',
    // The bound is the deployment's: the check runs when the run is told it (--session-turns).
    checks: ['quotas.session-turns'],
  },
  {
    section: '8.8',
    says: 'a server MUST bound the turn state it holds in all',
    group: 'quotas',
    reason:
      "reaching the total, and seeing new turns refused while a turn held goes on, takes filling the server's store (the reference server: 512 MiB) with turns from several clients, far past what a conformance run may do to a server it is pointed at; the reference server's tests fill a small store on memory and on Redis and check that a parked turn of another address still answers its next hop (packages/reference-server/test/quotas.test.ts, G1)",
  },
  {
    section: '8.8',
    says: 'A server MUST answer the bound on new sessions of one client address on the',
    group: 'quotas',
    reason:
      "reaching it takes as many new sessions from the kit's address as the deployment allows in its window (the reference server: 120 in 10 minutes), after which that address can open no session, the rest of the run's included, until the window ends; the reference server's tests cover it (packages/reference-server/test/quotas.test.ts, new sessions from one address)",
  },
  {
    section: '8.8',
    says: 'A server MUST check the bounds on turns and stored data for a *new* turn only',
    group: 'quotas',
    checks: ['quotas.session-turns'],
  },
  {
    section: '8.8',
    says: "A server MUST count as a session's (and its address's) **stored data**",
    group: 'quotas',
    reason:
      "what a server stores for a turn, and so when the byte bound is reached, is the server's own affair: no answer tells the bytes; the reference server's tests count attachments and kept answers (packages/reference-server/test/quotas.test.ts)",
  },
  // spec §9 Narration
  {
    section: '9',
    says: 'A server MUST trim with this set',
    group: 'narration',
    checks: [
      'hop-rules.progress-accumulates',
      'hop-rules.answer-stripped',
      'invariants.progress-never-shrinks',
      'invariants.answer-not-in-progress',
      'scenario.narration-edges',
    ],
  },
  { section: '9', says: 'Servers MUST use this text', group: 'max-hops', checks: ['hop-rules.max-hops'] },
  {
    section: '9',
    says: 'A client MUST escape them before putting them in HTML',
    group: 'client',
    checks: ['client.shown-as-text'],
  },
  // spec §10 The layout model
  {
    section: '10',
    says: 'which MUST be a component of that same list',
    group: 'uuids',
    checks: ['invariants.outputs-apply', 'hop-rules.uuid-chaining'],
  },
  { section: '10', says: 'which MUST store it as given', group: 'client', checks: ['client.document-fresh'] },
  // spec §10.1 Derived props
  {
    section: '10.1',
    says: 'A server MUST refuse, as any invalid tool input',
    group: 'derived-props',
    checks: ['tools.derived-props-never-set'],
  },
  {
    section: '10.1',
    says: 'A server MUST refuse, when it starts, a catalog that marks a prop both',
    group: 'config',
    reason:
      "a server's start-up cannot be observed over HTTP; the catalog file's schema and createApp refuse such a catalog (packages/protocol/test/derived-props.test.ts, packages/reference-server/test/config.test.ts)",
  },
  {
    section: '10.1',
    says: 'A server MUST send every node it places with `derived` listing',
    group: 'derived-props',
    checks: ['tools.derived-props-listed'],
  },
  {
    section: '10.1',
    says: 'MUST skip every prop listed in `derived` on either node',
    group: 'client',
    checks: ['client.derived-props'],
  },
  // spec §11 Outputs and how a host applies them
  {
    section: '11',
    says: 'A v1 host MUST understand these three types',
    group: 'client',
    checks: ['client.document-fresh'],
  },
  {
    section: '11',
    says: 'so a server MUST NOT send either to a client that did not declare it',
    group: 'capabilities',
    checks: ['capabilities.undeclared-not-offered'],
  },
  // spec §11.1 place_components
  {
    section: '11.1',
    says: 'the region (it MUST exist in `regions`)',
    group: 'uuids',
    checks: ['invariants.outputs-apply'],
  },
  {
    section: '11.1',
    says: 'Every uuid in `components`, at any depth, MUST be new to the layout',
    group: 'uuids',
    checks: ['invariants.outputs-apply', 'hop-rules.uuid-chaining'],
  },
  // spec §11.2 edit_components
  {
    section: '11.2',
    says: 'For each uuid (it MUST be in the layout, at any depth)',
    group: 'uuids',
    checks: ['invariants.outputs-apply'],
  },
  // spec §11.4 remove_components
  {
    section: '11.4',
    says: 'Each uuid MUST be in the layout when its turn comes',
    group: 'uuids',
    checks: ['scenario.remove-testimonials', 'scenario.remove-selected', 'scenario.move-testimonials-up'],
  },
  // spec §11.5 move_components
  {
    section: '11.5',
    says: 'Every uuid MUST be in the layout, and the target MUST NOT be a slot of a moved component',
    group: 'uuids',
    checks: ['scenario.move-testimonials-up'],
  },
  {
    section: '11.5',
    says: 'which MUST be in that list and MUST NOT be one of the moved components',
    group: 'uuids',
    checks: ['scenario.move-next-to-itself'],
  },
  // spec §11.6 Impossible outputs and their conflicts
  {
    section: '11.6',
    says: 'Impossible operations a host MUST reject',
    group: 'client',
    checks: ['client.apply-results'],
  },
  {
    section: '11.6',
    says: 'A host MUST reject, besides the impossible operations of',
    group: 'client',
    checks: ['client.remove-move'],
  },
  // spec §12 Tools
  {
    section: '12',
    says: 'Every page-changing tool MUST validate its whole input',
    group: 'tools-validation',
    checks: ['hop-rules.validation-error-recovery', 'tools.prop-types', 'tools.placement-rules'],
  },
  {
    section: '12',
    says: '`remove_components` and `move_components` MUST validate like the others',
    group: 'tools-validation',
    checks: ['scenario.move-testimonials-up', 'hop-rules.validation-error-recovery'],
  },
  {
    section: '12',
    says: 'a server MUST give every later call of that tool in the same reply the message',
    group: 'one-call',
    checks: ['tools.one-call-at-a-time'],
  },
  {
    section: '12',
    says: 'An output MUST be one of the v1 types',
    group: 'parking',
    checks: ['schemas.hop-responses', 'hop-rules.outputs-in-next-hop'],
  },
  {
    section: '12',
    says: 'a server MUST bound it before building it',
    group: 'yaml',
    reason:
      "needs a model that writes hostile YAML: no scripted scenario does, since its replies must also be a fixture every server replays; the protocol's tests cover it (packages/protocol/test/tools-parse-yaml.test.ts)",
  },
  {
    section: '12',
    says: 'Every call of one decision MUST have a `call_id` of its own',
    group: 'call-ids',
    reason:
      "needs a model that repeats a call id, which no scripted scenario does (their ids are the fixture's); the reference server's tests cover it (packages/reference-server/test/model-context.test.ts)",
  },
  {
    section: '12',
    says: 'A server MUST NOT send a `remove_components` output that names a uuid twice',
    group: 'remove-listed-twice',
    checks: ['tools.remove-listed-twice'],
  },
  {
    section: '12',
    says: 'A uuid listed twice in the `uuids` of one operation MUST refuse the whole call',
    group: 'move-listed-twice',
    checks: ['tools.move-listed-twice'],
  },
  {
    section: '12',
    says: '`replaces` MUST give where it was before the call',
    group: 'move-replaces',
    checks: ['tools.move-replaces-before-the-call'],
  },
  {
    section: '12',
    says: 'an operation of a `move_components` output with placement `inside` MUST NOT carry `reference_uuid`',
    group: 'placement-rules',
    checks: ['tools.placement-rules'],
  },
  {
    section: '12.1',
    says: 'A server MUST read the YAML strings of tool inputs',
    group: 'yaml',
    checks: ['tools.yaml-1-2'],
  },
  { section: '12.1', says: 'A map MUST NOT hold one key twice', group: 'yaml', checks: ['tools.yaml-1-2'] },
  {
    section: '12.2',
    says: 'A server MUST accept a prop value exactly when this table does',
    group: 'prop-types',
    checks: ['tools.prop-types'],
  },
  {
    section: '12.2',
    says: 'A placed component MUST be given every `required` prop',
    group: 'prop-types',
    checks: ['tools.prop-types'],
  },
  {
    section: '12.3',
    says: 'a server MUST send each placed node with every prop as the page will show it',
    group: 'placed-props',
    checks: ['tools.placed-props', 'scenario.slot-order'],
  },
  {
    section: '12.3',
    says: 'An operation with placement `inside` MUST NOT carry `reference_uuid`',
    group: 'placed-props',
    checks: ['tools.placement-rules'],
  },
  {
    section: '12.3',
    says: 'a server MUST leave out of `component_updates` every prop',
    group: 'edit-changed',
    checks: ['tools.edit-changed-props-only'],
  },
  {
    section: '12.4',
    says: 'a server MUST refuse a config outside that range when it starts',
    group: 'config',
    reason:
      "a server's start-up cannot be observed over HTTP; the kit bounds the turn it plays by the largest max_hops (invariants.turn-completes), and the reference server's config tests cover the refusal (packages/reference-server/test/config.test.ts)",
  },
  {
    section: '12.4',
    says: 'A server MUST refuse, when it starts, an agent with `plan_first`',
    group: 'config',
    reason:
      "a server's start-up cannot be observed over HTTP; the protocol's tests cover both refusals (packages/protocol/test/propose-plan.test.ts)",
  },
  {
    section: '12.4',
    says: 'A server MUST refuse settings that break one of these rules',
    group: 'config',
    reason:
      "a server's start-up and its configuration cannot be observed over HTTP,; the protocol's and the reference server's config tests cover every rule (packages/protocol/test/agents-config.test.ts, packages/reference-server/test/config.test.ts)",
  },
  {
    section: '12.4',
    says: 'a turn in flight MUST keep the agent it started with',
    group: 'config',
    reason:
      "needs the settings changed mid-turn, which only the server's operator can do (its config, or the optional admin surface the kit holds no token for); the reference server's tests change them between hops of a main-agent turn and of a picked one (packages/reference-server/test/agent-settings.test.ts)",
  },
  // spec §13 Size limits
  {
    section: '13',
    says: 'A server MUST enforce these limits before calling a model',
    group: 'limits',
    checks: ['limits.messages', 'limits.layout-components', 'door.body-too-large', 'attachments.too-large'],
  },
  {
    section: '13',
    says: 'A server MUST count as follows',
    group: 'limits',
    checks: [
      'limits.message-characters',
      'limits.json-depth',
      'limits.json-values',
      'limits.layout-components',
      'limits.messages',
    ],
  },
  {
    section: '13',
    says: '`field` MUST be the path of the object that key is in',
    group: 'limits',
    checks: ['limits.map-keys'],
  },
  // spec §13.1 Bounding the work before it is spent
  {
    section: '13.1',
    says: 'a server MUST hold a request to them *before* it spends the work',
    group: 'work-bounds',
    reason: WORK_BOUND,
  },
  {
    section: '13.1',
    says: 'A server that checks decoded values MUST stop its walk',
    group: 'work-bounds',
    reason: WORK_BOUND,
  },
  {
    section: '13.1',
    says: 'A multipart body MUST be refused as soon as it passes',
    group: 'work-bounds',
    reason: WORK_BOUND,
  },
  // spec §13.2 Work bounded by what a request carries
  {
    section: '13.2',
    says: 'A server MUST keep the work of one hop linear in what its request and the model',
    group: 'work-bounds',
    reason: WORK_GROWTH,
  },
  {
    section: '13.2',
    says: 'MUST use an index built once, be capped',
    group: 'work-bounds',
    reason: WORK_GROWTH,
  },
  {
    section: '13.2',
    says: 'MUST bound that search',
    group: 'work-bounds',
    reason: `${WORK_GROWTH}; the suggestion search's work is counted in the protocol's and the reference server's tests (packages/protocol/test/uuid-suggestions.test.ts, packages/reference-server/test/suggestion-bounds.test.ts)`,
  },
  {
    section: '13.2',
    says: 'MUST do the work of a request that grows with the page',
    group: 'work-bounds',
    reason: `${WORK_BOUND}, with another process keeping one core busy`,
  },
  // spec §14 Versioning
  {
    section: '14',
    says: 'A server MUST reject a request naming a version it does not speak',
    group: 'validation',
    checks: ['validation.protocol-of-another-version', 'validation.protocol-missing'],
  },
  // spec §16 Co-editing
  {
    section: '16.1',
    says: "A server MUST NOT present these changes as the agent's own work",
    group: 'model-context',
    reason: PROMPT,
  },
  {
    section: '16.1',
    says: 'a parked call MUST NOT undo it',
    group: 'parked-calls-keep-person-edits',
    checks: PARKED_GUARD,
  },
  {
    section: '16.1',
    says: 'A server MUST refuse a parked call, as a whole, when it would overwrite what the person changed',
    group: 'parked-calls-keep-person-edits',
    checks: PARKED_GUARD,
  },
  {
    section: '16.2',
    says: 'A server MUST send `replaces` on every `edit_components` output',
    group: 'replaces',
    checks: ['coediting.replaces'],
  },
  {
    section: '16.2',
    says: 'It MUST send `replaces` on every `set_page_value` output',
    group: 'replaces',
    checks: ['coediting.replaces'],
  },
  {
    section: '16.2',
    says: 'A host that applies an output with `replaces` MUST first compare',
    group: 'client',
    checks: ['client.apply-results'],
  },
  {
    section: '16.2',
    says: 'When any differs, the host MUST NOT apply the output',
    group: 'client',
    checks: ['client.apply-results', 'client.document-fresh'],
  },
  {
    section: '16.2',
    says: 'A server MUST tell the model of every conflict before its next decision',
    group: 'model-context',
    reason: PROMPT,
  },
  {
    section: '16.3',
    says: 'A response that ends the turn MUST NOT carry outputs ([§2](#2-a-turn',
    group: 'final-no-outputs',
    checks: ['invariants.final-no-outputs', 'hop-rules.final-no-outputs'],
  },
  {
    section: '16.4',
    says: 'A client MUST NOT send a document that breaks the layout model',
    group: 'client',
    checks: ['client.valid-requests'],
  },
  {
    section: '16.4',
    says: 'A host MUST give every component it copies or duplicates a new uuid',
    group: 'client',
    reason: `${PERSONS_ACT('a copy')}; a copy made during a turn without a new uuid would fail client.valid-requests (its planted bug, copied-uuid in packages/widget/test/node/broken-loop.ts, does), and a server refuses the duplicate (validation.the-same-uuid-twice-in-the-layout)`,
  },
  // spec §17 Undo
  {
    section: '17.1',
    says: 'the inverses MUST give back exactly the document before them',
    group: 'client',
    reason: `${PERSONS_ACT('an undo')}; the shared reducer's tests cover it (packages/protocol/test/inverse-outputs.test.ts: the round trip as a property over random layouts and outputs, and undo beside the person's later edits)`,
  },
  {
    section: '17.2',
    says: 'An undo MUST NOT overwrite what the person changed after the agent',
    group: 'client',
    reason: `${PERSONS_ACT('an undo')}; the shared reducer's tests cover it (packages/protocol/test/inverse-outputs.test.ts: the round trip as a property over random layouts and outputs, and undo beside the person's later edits)`,
  },
  {
    section: '17.2',
    says: 'A client MUST tell the person what could not be undone',
    group: 'client',
    reason: `${PERSONS_ACT('an undo')}, so no scripted turn leaves the client anything it could not undo to tell; the widget's tests cover it (packages/widget/test/canvas-ai-chat.undo.test.ts)`,
  },
  {
    section: '17.3',
    says: 'The response to a hop in flight when the person stopped MUST NOT be applied',
    group: 'client',
    checks: ['client.stopped-response-not-applied'],
  },
  // spec §18 Resume after a reload
  {
    section: '18',
    says: 'A client MUST NOT resume a turn of another session',
    group: 'client',
    reason: `${CLIENT_KIT}, one turn per run of its adapter: a resume needs the client's kept turn to outlive a reload in the same browser tab while its session changes, and where a client keeps its turn is its own affair (spec §18 asks only that it survive the reload), so no adapter contract could set that up for every client; a client that breaks the rule gets its turn refused, not another's, as the server answers a status or hop of another session's turn 410 (status.other-session-410); the reference widget keeps its turn in sessionStorage, one tab's and gone with the browser session (packages/widget/src/turn-storage.ts; resumed and refused in packages/widget/test/canvas-ai-chat.resume.test.ts)`,
  },
  // conformance.md §3 Scripted mode
  {
    document: 'conformance.md',
    section: '3',
    says: "Your server's **scripted mode** MUST:",
    group: 'scripted',
    checks: [
      'scenario.*',
      'scripted.match-normalized-message',
      'scripted.no-scenario-answer',
      'turn-rules.failed-turn-gone',
    ],
  },
  // spec §19 The admin surface (optional)
  { section: '19', says: 'the surface MUST NOT exist (404)', group: 'admin', reason: ADMIN_SURFACE },
  {
    section: '19',
    says: 'A request MUST carry `Authorization: Bearer <token>`',
    group: 'admin',
    reason: ADMIN_SURFACE,
  },
  { section: '19', says: 'The session cookie and the CSRF token', group: 'admin', reason: ADMIN_SURFACE },
  // spec §20 Waiting turns: the person inside a turn (revisions 1.7 and 1.8)
  {
    section: '20.1',
    says: 'A server MUST NOT offer the model a tool that makes a turn wait',
    group: 'waits-offered',
    checks: ['waits.undeclared-not-offered', 'screenshots.undeclared-not-offered', 'waits.plan-undeclared-not-offered'],
  },
  {
    section: '20.1',
    says: 'A hop that executed such a call MUST NOT call the model',
    group: 'waits-hop',
    checks: ['waits.waiting-hop', 'screenshots.waiting-hop', 'waits.plan-waiting-hop', 'scenario.*'],
  },
  {
    section: '20.1',
    says: 'MUST answer every later one of the same reply with a readable result and no wait',
    group: 'waits-hop',
    reason: `${PROMPT}; a second ask_question of a reply is refused by its allow_parallel, and a second call of another waiting tool by the shared executor (packages/protocol/test/ask-question.test.ts)`,
  },
  {
    section: '20.1',
    says: 'The client shows what the turn waits for and MUST NOT send the next hop before',
    group: 'client',
    checks: ['client.waits-for-answer', 'client.wait-answer', 'client.stop-while-waiting'],
  },
  {
    section: '20.1',
    says: 'a server MUST refuse with 400, changing nothing, the next hop of a waiting turn',
    group: 'waits-answer-checked',
    checks: ['waits.answer-checked'],
  },
  {
    section: '20.1',
    says: 'A hop of a turn that waits for nothing and carries an `answer` MUST get 400',
    group: 'waits-answer-checked',
    checks: ['waits.stray-answer'],
  },
  {
    section: '20.1',
    says: 'MUST carry the same `waiting` as that hop',
    group: 'waits-status',
    checks: ['waits.status'],
  },
  {
    section: '20.1',
    says: 'a server MUST NOT run the turn on, and answers its next hop',
    group: 'waits-expiry',
    checks: ['waits.expiry'],
  },
  {
    section: '20.1',
    says: '`DELETE /api/hop/{request_id}` MUST cancel a waiting turn as any other',
    group: 'waits-cancel',
    checks: ['waits.cancel'],
  },
  {
    section: '20.2',
    says: 'A server MUST refuse (400 `invalid_request`, as above) an answer that picks a choice',
    group: 'waits-answer-checked',
    reason:
      "which answers a question refuses depends on its choices and flags, and the kit's scenario asks one question; the reference server's tests send each refused answer over HTTP (packages/reference-server/test/questions.test.ts)",
  },
  {
    section: '20.2',
    says: 'The result of the call is one line, which a server MUST word exactly so',
    group: 'waits-answer',
    checks: ['waits.answer-reaches-model', 'scenario.*'],
  },
  // spec §20.5 Approval of destructive changes (revision 1.8)
  {
    section: '20.5',
    says: 'a server MUST NOT send it in the hop that executed its call',
    group: 'approvals-held',
    checks: ['scenario.*'],
  },
  {
    section: '20.5',
    says: 'A server MUST word them so',
    group: 'approvals-answer',
    checks: ['approvals.answer-reaches-model', 'scenario.*'],
  },
  {
    section: '20.5',
    says: 'a server MUST NOT send an output that needs approval',
    group: 'approvals-undeclared',
    checks: ['approvals.undeclared-not-sent'],
  },
  {
    section: '12.4',
    says: 'a server MUST refuse at start-up an `approve` that names',
    group: 'config',
    reason:
      "a server's start-up cannot be observed by a client; the agents config's schema, with which the reference server reads its config, allows only the output types (packages/protocol/test/approvals.test.ts)",
  },
  // spec §20.3 A look at the page (revision 1.8)
  {
    section: '20.3',
    says: 'a server MUST refuse with 400, changing nothing, an answer with `unavailable: false` and no image',
    group: 'screenshots-answer-checked',
    checks: ['screenshots.answer-checked'],
  },
  {
    section: '20.3',
    says: 'The result of the call is one line, which a server MUST word exactly so',
    group: 'screenshots-answer',
    checks: ['screenshots.answer-reaches-model', 'scenario.*'],
  },
  // spec §20.4 Plans (revision 1.8)
  {
    section: '20.4',
    says: 'A server MUST refuse, as any invalid tool input',
    group: 'waits-plan',
    reason: `${PROMPT}; a plan naming a component the catalog lacks gets a readable result and no wait (packages/protocol/test/propose-plan.test.ts)`,
  },
  {
    section: '20.4',
    says: 'A server MUST refuse (400 `invalid_request`, `field: "answer.feedback"`',
    group: 'waits-plan-answer-checked',
    checks: ['waits.plan-answer-checked'],
  },
  {
    section: '20.4',
    says: 'The result of the call is one line, which a server MUST word exactly so',
    group: 'waits-plan-answer',
    checks: ['waits.plan-feedback-reaches-model', 'scenario.*'],
  },
  {
    section: '20.4',
    says: 'a host MUST keep them out of the document it sends in `context`',
    group: 'client',
    checks: ['client.document-fresh'],
  },
];

/** GitHub's anchor of a markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** The figures of the matrix: statements, with checks, with reasons, rule groups with checks. */
export function matrixFigures(rows: readonly MustRow[] = MUST_MATRIX) {
  const checked = rows.filter((row) => row.checks !== undefined);
  return {
    statements: rows.length,
    withChecks: checked.length,
    withReasons: rows.length - checked.length,
    groups: [...new Set(checked.map((row) => row.group))],
  };
}

/**
 * The matrix as the markdown of spec/conformance.md §6, between its generated markers: one row per MUST, linked to
 * its section of `protocol` (the text of spec/hop-protocol.md, for the anchors).
 */
export function mustMatrixMarkdown(protocol: string, rows: readonly MustRow[] = MUST_MATRIX): string {
  const anchors = new Map(
    [...protocol.matchAll(/^#{2,6} (\d+(?:\.\d+)*)\.? (.+)$/gm)].map((match) => [
      match[1]!,
      anchorOf(match[0]!.replace(/^#+ /, '')),
    ]),
  );
  const figures = matrixFigures(rows);
  const lines = [
    `${figures.statements} MUST statements: ${figures.withChecks} observed by kit checks, ${figures.withReasons} with the reason no request can observe them; ${figures.groups.length} rule groups with checks.`,
    '',
    '| section | the MUST | group | checked by, or why it cannot be |',
    '|---|---|---|---|',
  ];
  for (const row of rows) {
    const where =
      row.document === 'conformance.md'
        ? `[conformance §${row.section}](#3-scripted-mode-what-level-2-needs-from-your-server)`
        : `[§${row.section}](hop-protocol.md#${anchors.get(row.section) ?? ''})`;
    const says = row.says.replace(/\|/g, '\\|');
    const how = row.checks ? row.checks.map((check) => `\`${check}\``).join(', ') : `*not observable:* ${row.reason}`;
    lines.push(`| ${where} | "${says}…" | ${row.group} | ${how} |`);
  }
  return lines.join('\n');
}

/** Replaces the generated matrix of spec/conformance.md (between its markers) with `table`. */
export function fillMustMatrix(conformance: string, table: string): string {
  const open = '<!-- generated:must-matrix (pnpm spec) -->';
  const close = '<!-- /generated:must-matrix -->';
  const start = conformance.indexOf(open);
  const end = conformance.indexOf(close);
  if (start < 0 || end < start) throw new Error(`spec/conformance.md has no ${open} … ${close} markers`);
  return `${conformance.slice(0, start + open.length)}\n${table}\n${conformance.slice(end)}`;
}
