/** The protocol's size limits. A server MAY be stricter; every limit is enforced before any model call. */
export const LIMITS = {
  /** A multipart request body (hop 1 with attachments). Over it: 413 before the body is parsed. */
  maxBodyBytes: 32 * 1024 * 1024,
  /**
   * A JSON request body, and the `request` part of a multipart one: far below {@link LIMITS.maxBodyBytes}, which is
   * sized for attachments. A 20,000-component page of ordinary props is about 4 MB; parsing more costs the server
   * time no client needs.
   */
  maxJsonBodyBytes: 8 * 1024 * 1024,
  /** Characters of one message's text. */
  messageChars: 20_000,
  /** Messages in hop 1's transcript. */
  maxMessages: 1_000,
  /** Components in `context.current_layout`, counted through every slot. */
  maxLayoutComponents: 20_000,
  /** Nesting depth of any JSON in a request (objects and arrays). */
  maxJsonDepth: 64,
  /** JSON values (scalars, objects, arrays) in one request: bounds the validation work a body can cause. */
  maxJsonValues: 500_000,
  /** JSON values outside `context.current_layout` (messages, page, extra, apply_results), and in one tool call's arguments. */
  maxJsonValuesOutsideLayout: 50_000,
  /** An object of more keys than this is a map: decoding its keys costs several times a small object's. */
  mapThresholdKeys: 128,
  /** Keys of every map (see `mapThresholdKeys`) of one request, summed: bounds the cost of decoding big maps. */
  maxMapKeys: 100_000,
  /** Parts of a multipart body (`request`, the attachments, and any the server ignores). */
  maxMultipartParts: 16,
  /** Bytes of the header block of one multipart part. */
  maxPartHeaderBytes: 8 * 1024,
  /** Attachments on hop 1. */
  maxAttachments: 4,
  /** Bytes of one attachment. */
  maxAttachmentBytes: 5 * 1024 * 1024,
  /** The largest hop number a request may carry (a safety net; turns are bounded by `max_hops`). */
  maxHopNumber: 1_000,
  /** Outputs in one response, and so apply results in one request. */
  maxOutputsPerHop: 100,
} as const;

/** An agent's `max_hops` (model decisions per turn) when its config names none. */
export const DEFAULT_AGENT_HOPS = 10;

/** The largest `max_hops` an agent may configure. */
export const MAX_AGENT_HOPS = 49;

/**
 * The most requests a turn can take: `max_hops` decisions, one hop that only executes the last parked calls, and
 * one that hears how they were applied and ends the turn (spec §2). A client's safety net at this bound never ends
 * a turn a conforming server would finish.
 */
export const MAX_TURN_REQUESTS = MAX_AGENT_HOPS + 2;

/**
 * The most requests a turn whose client declared waits can take (spec §20.1): a waiting hop makes no decision, and
 * each decision may make the turn wait once, so one hop more per decision.
 */
export const MAX_WAITING_TURN_REQUESTS = 2 * MAX_AGENT_HOPS + 2;
