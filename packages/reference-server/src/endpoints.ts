/**
 * The endpoints of the reference server (spec §3), once: the routes' 405 answers, the CORS preflight's
 * `Access-Control-Allow-Methods` and the msw mock's handlers all read this table.
 */

/** One endpoint: its path (Hono and msw syntax, `:name` for a segment), its methods, and what they are for. */
export interface Endpoint {
  readonly path: string;
  readonly methods: readonly string[];
  /** How to use it, for the 405 message: "send hops with POST". */
  readonly what: string;
}

/** Every endpoint `createApp` serves; `HEAD` goes with `GET`. */
export const ENDPOINTS: readonly Endpoint[] = [
  { path: '/api/hop', methods: ['POST'], what: 'send hops with POST' },
  { path: '/api/hop/:request_id', methods: ['GET', 'DELETE'], what: 'read a turn with GET, cancel it with DELETE' },
  { path: '/api/agents', methods: ['GET'], what: 'read the agents with GET' },
  { path: '/api/token', methods: ['GET'], what: 'fetch the token with GET' },
  { path: '/healthz', methods: ['GET'], what: 'check health with GET' },
];

/** Each endpoint's path as a pattern: `:name` stands for one non-empty segment. */
const PATTERNS = ENDPOINTS.map(
  (endpoint) => [new RegExp(`^${endpoint.path.replace(/:[a-z_]+/g, '[^/]+')}$`), endpoint] as const,
);

/** The endpoint at `pathname`, or undefined for a path that is not one. */
export function endpointAt(pathname: string): Endpoint | undefined {
  return PATTERNS.find(([pattern]) => pattern.test(pathname))?.[1];
}
