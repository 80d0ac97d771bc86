import { errorMessage } from '@canvas-ai/protocol';
import { UsageError } from '@canvas-ai/protocol/node';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * One command-line flag: its value's placeholder (none for a switch), default and help (as the conformance CLI's),
 * and the environment variable that sets it when the flag is not given.
 */
interface FlagSpec {
  type: 'string' | 'boolean';
  value?: string;
  default?: string;
  help: string;
  env?: string;
}

/** The CLI's flags as data: the parser and `--help` are both made from this. */
const CLI_FLAGS = {
  port: { type: 'string', value: 'N', default: '8787', help: 'Port to listen on (0 picks a free one).' },
  host: {
    type: 'string',
    value: 'H',
    default: '127.0.0.1',
    help: 'Interface to bind; 0.0.0.0 exposes the server to the network.',
  },
  agents: { type: 'string', value: 'FILE', help: 'Agents config YAML (default: fixtures/agents.yaml).' },
  catalog: { type: 'string', value: 'FILE', help: 'Component catalog YAML (default: fixtures/catalog.yaml).' },
  scenarios: {
    type: 'string',
    value: 'DIR',
    help: 'Scenario fixtures folder for the scripted provider (default: fixtures/scenarios).',
  },
  provider: {
    type: 'string',
    value: 'NAME',
    help:
      'scripted (replays scenarios, no key, no network; the default), openai (any OpenAI-compatible endpoint) or ' +
      'anthropic. Default from CANVAS_AI_PROVIDER.',
  },
  'scripted-word-delay': {
    type: 'string',
    value: 'MS',
    default: '0',
    env: 'CANVAS_AI_SCRIPTED_WORD_DELAY_MS',
    help: 'Milliseconds between the words of a scripted reply, so a streamed hop shows them arriving (npm start: 30).',
  },
  static: {
    type: 'string',
    value: 'DIR',
    help: 'Serve the files of this folder on the same origin (e.g. a built editor).',
  },
  store: {
    type: 'string',
    value: 'memory|URL',
    default: 'memory',
    help: 'Turn store: memory (one process), redis://[user:pass@]host:port[/db] (several instances), or redis-cluster://[user:pass@]host:port (any node of a Redis Cluster).',
  },
  'allowed-hosts': {
    type: 'string',
    value: 'LIST',
    env: 'CANVAS_AI_ALLOWED_HOSTS',
    help:
      'Comma-separated host names the server answers to (.example.com: the domain and its subdomains; *: any). ' +
      'Default: the loopback names, plus the bound address and the machine name when not bound to loopback.',
  },
  'allowed-origins': {
    type: 'string',
    value: 'LIST',
    env: 'CANVAS_AI_ALLOWED_ORIGINS',
    help:
      "Comma-separated origins besides the request's own that may POST and DELETE (e.g. a proxy's public origin), " +
      'and host pages on those origins get CORS answers (spec §4.6).',
  },
  'token-ttl': {
    type: 'string',
    value: 'TIME',
    default: '12h',
    env: 'CANVAS_AI_TOKEN_TTL',
    help: 'How long a CSRF token from GET /api/token is accepted (then 403 csrf_invalid; the widget fetches another).',
  },
  'wait-ttl': {
    type: 'string',
    value: 'TIME',
    default: '15m',
    env: 'CANVAS_AI_WAIT_TTL',
    help: "How long a turn waits for the person's answer to a question (then 410 wait_expired; spec §20.1).",
  },
  'session-turns': {
    type: 'string',
    value: 'N',
    default: '32',
    env: 'CANVAS_AI_SESSION_TURNS',
    help: 'Turns one session may run at once (429 quota_exceeded for another; 0: no limit).',
  },
  'session-bytes': {
    type: 'string',
    value: 'SIZE',
    default: '64MiB',
    env: 'CANVAS_AI_SESSION_BYTES',
    help: 'Stored turn data one session may hold, attachments included (429 quota_exceeded for a new turn past it).',
  },
  'session-answers': {
    type: 'string',
    value: 'N',
    default: '32',
    env: 'CANVAS_AI_SESSION_ANSWERS',
    help: "Finished turns' answers one session keeps for a replay; its oldest are dropped past it (0: no limit).",
  },
  'address-turns': {
    type: 'string',
    value: 'N',
    default: '64',
    env: 'CANVAS_AI_ADDRESS_TURNS',
    help: 'Turns the sessions of one client address (an IPv6 /64) may run at once (429 past it; 0: no limit).',
  },
  'address-bytes': {
    type: 'string',
    value: 'SIZE',
    default: '256MiB',
    env: 'CANVAS_AI_ADDRESS_BYTES',
    help: 'Stored turn data the sessions of one client address may hold together (429 for a new turn past it; 0: no limit).',
  },
  'store-bytes': {
    type: 'string',
    value: 'SIZE',
    default: '512MiB',
    env: 'CANVAS_AI_STORE_BYTES',
    help:
      'The turn store in all: stored JSON in memory, or the memory Redis reports using. Past it new turns get 503 ' +
      'server_busy; nothing held is evicted.',
  },
  'client-address-header': {
    type: 'string',
    value: 'NAME',
    env: 'CANVAS_AI_CLIENT_ADDRESS_HEADER',
    help:
      "Behind a reverse proxy only: the header it writes the client's address in (x-forwarded-for: its last entry). " +
      'Default: none, the connection’s address.',
  },
  'ip-sessions': {
    type: 'string',
    value: 'N',
    default: '120',
    env: 'CANVAS_AI_IP_SESSIONS',
    help: 'New sessions one client address may start per 10 minutes (429 past it; 0: no limit; behind a proxy use 0).',
  },
  'max-connections': {
    type: 'string',
    value: 'N',
    default: '512',
    env: 'CANVAS_AI_MAX_CONNECTIONS',
    help: 'Connections open at once; more are closed on arrival.',
  },
  'max-connections-per-ip': {
    type: 'string',
    value: 'N',
    default: '64',
    env: 'CANVAS_AI_MAX_CONNECTIONS_PER_IP',
    help: 'Connections open at once from one client address (0: no limit; behind a proxy, raise it or use 0).',
  },
  'reserved-connections': {
    type: 'string',
    value: 'N',
    default: '64',
    env: 'CANVAS_AI_RESERVED_CONNECTIONS',
    help: 'The last connections of --max-connections, kept for clients holding fewer than 4 (at most a quarter).',
  },
  'headers-timeout': {
    type: 'string',
    value: 'TIME',
    default: '10s',
    env: 'CANVAS_AI_HEADERS_TIMEOUT',
    help: 'How long the request line and headers may take to arrive (408 after).',
  },
  'body-timeout': {
    type: 'string',
    value: 'TIME',
    default: '60s',
    env: 'CANVAS_AI_BODY_TIMEOUT',
    help: 'How long a request body may take to arrive after its headers (408 request_timeout after).',
  },
  'max-buffered': {
    type: 'string',
    value: 'SIZE',
    default: '256MiB',
    env: 'CANVAS_AI_MAX_BUFFERED',
    help: 'Request body bytes held in memory at once, all requests together (503 server_busy past it).',
  },
  help: { type: 'boolean', help: 'Show this help.' },
} as const satisfies Record<string, FlagSpec>;

/** The environment variables the server reads. */
const CLI_ENV = {
  CANVAS_AI_PROVIDER:
    'The provider when --provider is not given: scripted (default), openai or anthropic (so `npm start` can use a real model).',
  CANVAS_AI_OPENAI_BASE_URL:
    'OpenAI-compatible base URL ending in /v1 (Ollama: http://127.0.0.1:11434/v1). Default: OpenAI.',
  CANVAS_AI_OPENAI_API_KEY: 'API key (local servers accept any value).',
  CANVAS_AI_OPENAI_MODEL: 'Model name, e.g. gpt-4o-mini or llama3.1 (required with --provider openai).',
  CANVAS_AI_OPENAI_TIMEOUT_MS:
    'Milliseconds one try of a model call may take, to its last streamed chunk (default 120000).',
  CANVAS_AI_ANTHROPIC_API_KEY: 'Anthropic API key (required with --provider anthropic).',
  CANVAS_AI_ANTHROPIC_MODEL: 'Anthropic model name, e.g. claude-sonnet-4-5 (required with --provider anthropic).',
  CANVAS_AI_ANTHROPIC_BASE_URL: 'Messages API base URL, without /v1 (default: https://api.anthropic.com).',
  CANVAS_AI_ANTHROPIC_TIMEOUT_MS:
    'Milliseconds one Anthropic call may take, its whole stream included (default 120000).',
  CANVAS_AI_ANTHROPIC_MAX_TOKENS: 'The most tokens one Anthropic reply may have (default 8192).',
  CANVAS_AI_SECRET:
    'HMAC secret of session cookies and CSRF tokens, at least 16 characters (default: random per start).',
  CANVAS_AI_ADMIN_TOKEN:
    'Turns the admin settings on (GET/PUT /api/admin/settings, Authorization: Bearer <token>); at least 16 characters.',
  CANVAS_AI_CSRF: 'Set to "off" to skip CSRF checks, only behind your own CSRF protection (the origin check stays).',
  CANVAS_AI_SECURE_COOKIES: 'Set to "1" for a Secure, __Host- prefixed session cookie (serve over HTTPS).',
  CANVAS_AI_CROSS_SITE_COOKIES:
    'Set to "1" for a SameSite=None session cookie, for host pages on another site (needs CANVAS_AI_SECURE_COOKIES).',
  CANVAS_AI_LOG_MODEL_REQUESTS:
    'Set to "1" to log what every model call is sent (system prompt, messages): for debugging prompts; holds user text.',
} as const;

/** Parsed and checked CLI options. */
export interface CliOptions {
  port: number;
  host: string;
  agents?: string;
  catalog?: string;
  scenarios?: string;
  provider: 'scripted' | 'openai' | 'anthropic';
  /** Milliseconds between the words of a scripted reply (0: all at once). */
  scriptedWordDelayMs: number;
  static?: string;
  /**
   * `memory`, or the URL of a Redis shared by every instance (`redis://…`, `rediss://…` for TLS), or of any node of a
   * Redis Cluster (`redis-cluster://…`, `rediss-cluster://…`).
   */
  store:
    | 'memory'
    | `redis://${string}`
    | `rediss://${string}`
    | `redis-cluster://${string}`
    | `rediss-cluster://${string}`;
  /** Undefined: the default of the bound address. */
  allowedHosts: string[] | '*' | undefined;
  allowedOrigins: string[];
  tokenTtlMs: number;
  /** How long a turn waits for the person's answer (spec §20.1). */
  waitTtlMs: number;
  sessionTurns: number;
  sessionBytes: number;
  sessionAnswers: number;
  ipSessions: number;
  addressTurns: number;
  addressBytes: number;
  storeBytes: number;
  /** Undefined: the socket's address. */
  clientAddressHeader: string | undefined;
  maxConnections: number;
  reservedConnections: number;
  /** 0: no limit. */
  maxConnectionsPerIp: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxBufferedBodyBytes: number;
  help: boolean;
}

/** Parses the command line (flags win over `env`); throws a {@link UsageError} naming the bad flag. */
export function parseCliOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    const options: ParseArgsConfig['options'] = Object.fromEntries(
      Object.entries(CLI_FLAGS).map(([name, flag]: [string, FlagSpec]) => [
        name,
        // A flag with a variable gets its default after the variable is looked at (flag, then variable, then default).
        { type: flag.type, ...(flag.default === undefined || flag.env ? {} : { default: flag.default }) },
      ]),
    );
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be a port number, not "${values.port}".`);
  const provider = (values.provider as string | undefined) ?? (env.CANVAS_AI_PROVIDER || 'scripted');
  if (provider !== 'scripted' && provider !== 'openai' && provider !== 'anthropic') {
    const source = values.provider === undefined ? 'CANVAS_AI_PROVIDER' : '--provider';
    throw new UsageError(`${source} must be scripted, openai or anthropic, not "${provider}".`);
  }
  const store = values.store as string;
  if (store !== 'memory' && !isRedisUrl(store)) {
    throw new UsageError(
      `--store must be memory, a redis:// URL (e.g. redis://127.0.0.1:6379) or a redis-cluster:// URL naming one node of a cluster, not "${store}".`,
    );
  }
  const setting = (name: keyof typeof CLI_FLAGS): { text: string; source: string } => {
    const flag: FlagSpec = CLI_FLAGS[name];
    const given = values[name];
    if (typeof given === 'string') return { text: given, source: `--${name}` };
    const fromEnv = flag.env ? env[flag.env] : undefined;
    if (flag.env && fromEnv) return { text: fromEnv, source: flag.env };
    return { text: flag.default ?? '', source: `--${name}` };
  };
  return {
    port,
    host: values.host as string,
    agents: values.agents as string | undefined,
    catalog: values.catalog as string | undefined,
    scenarios: values.scenarios as string | undefined,
    provider,
    scriptedWordDelayMs: count(setting('scripted-word-delay'), 0),
    static: values.static as string | undefined,
    store: store as CliOptions['store'],
    allowedHosts: hostList(setting('allowed-hosts')),
    allowedOrigins: originList(setting('allowed-origins')),
    tokenTtlMs: duration(setting('token-ttl')),
    waitTtlMs: duration(setting('wait-ttl')),
    sessionTurns: count(setting('session-turns'), 0),
    sessionBytes: setting('session-bytes').text === '0' ? 0 : size(setting('session-bytes')),
    sessionAnswers: count(setting('session-answers'), 0),
    ipSessions: count(setting('ip-sessions'), 0),
    addressTurns: count(setting('address-turns'), 0),
    addressBytes: setting('address-bytes').text === '0' ? 0 : size(setting('address-bytes')),
    storeBytes: size(setting('store-bytes')),
    clientAddressHeader: headerName(setting('client-address-header')),
    maxConnections: count(setting('max-connections'), 1),
    reservedConnections: count(setting('reserved-connections'), 0),
    maxConnectionsPerIp: count(setting('max-connections-per-ip'), 0),
    headersTimeoutMs: duration(setting('headers-timeout')),
    bodyTimeoutMs: duration(setting('body-timeout')),
    maxBufferedBodyBytes: size(setting('max-buffered')),
    help: values.help === true,
  };
}

/** An HTTP header name, lowercased; undefined when not given. */
function headerName({ text, source }: { text: string; source: string }): string | undefined {
  const name = text.trim().toLowerCase();
  if (name === '') return undefined;
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new UsageError(`${source}: "${text}" is not a header name.`);
  return name;
}

/** A comma-separated list of host names, `*` for any; undefined when not given. */
function hostList({ text, source }: { text: string; source: string }): string[] | '*' | undefined {
  if (text.trim() === '') return undefined;
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('*')) return '*';
  const bad = names.find((name) => !/^(\.?[a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(name));
  if (bad !== undefined)
    throw new UsageError(`${source}: "${bad}" is not a host name (example.com, .example.com, 10.0.0.5, [::1]).`);
  return names;
}

/** A comma-separated list of origins (`https://host[:port]`). */
function originList({ text, source }: { text: string; source: string }): string[] {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin.replace(/\/$/, ''))
      throw new UsageError(`${source}: "${origin}" is not an origin (https://editor.example.com).`);
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

/** A whole number of at least `min`. */
function count({ text, source }: { text: string; source: string }, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min)
    throw new UsageError(`${source} must be a whole number of at least ${min}, not "${text}".`);
  return value;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A duration in milliseconds from `500ms`, `30s`, `5m` or `12h` (a bare number is milliseconds). */
function duration({ text, source }: { text: string; source: string }): number {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${source} must be a duration such as 500ms, 30s, 5m or 12h, not "${text}".`);
  return Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!;
}

const SIZE_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** A size in bytes from `512KiB`, `64MiB` or `1GiB` (a bare number is bytes). */
function size({ text, source }: { text: string; source: string }): number {
  const match = /^(\d+)(B|KiB|MiB|GiB)?$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${source} must be a size such as 512KiB, 64MiB or 1GiB, not "${text}".`);
  return Number(match[1]) * SIZE_UNITS[match[2] ?? 'B']!;
}

function isRedisUrl(value: string): boolean {
  if (!/^rediss?(-cluster)?:\/\//.test(value)) return false;
  try {
    return new URL(value.replace(/^(rediss?)-cluster:/, '$1:')).hostname !== '';
  } catch {
    return false;
  }
}

/** The `--help` text, made from {@link CLI_FLAGS} and {@link CLI_ENV}. */
export function helpText(): string {
  const flags = (Object.entries(CLI_FLAGS) as Array<[string, FlagSpec]>).map(([name, flag]) => {
    const usage = `  --${name}${flag.value ? ` ${flag.value}` : ''}`;
    const fallback = flag.default === undefined ? '' : ` (default ${flag.default})`;
    const variable = flag.env ? ` Also ${flag.env}.` : '';
    return `${usage.padEnd(32)}${flag.help}${fallback}${variable}`;
  });
  const env = Object.entries(CLI_ENV).map(([name, help]) => `  ${name.padEnd(30)}${help}`);
  return [
    'canvas-ai-server — the Canvas AI reference agent server (one model decision per request)',
    '',
    'Usage: canvas-ai-server [options]',
    '       canvas-ai-server check-model [options]   whether the configured model is usable (exit 0 yes, 1 no)',
    '',
    'Options:',
    ...flags,
    '',
    'Environment:',
    ...env,
  ].join('\n');
}

/** The `check-model --help` text: what it checks, and that it takes the server's own flags and variables. */
export function checkModelHelpText(): string {
  return [
    'canvas-ai-server check-model — is the configured model usable by this server?',
    '',
    'Usage: canvas-ai-server check-model --provider openai   (with the CANVAS_AI_OPENAI_* variables)',
    '',
    'Sends one tool-calling request and a streamed request twice through the configured provider and says, one line',
    'each: tool calls work; one call at a time is honoured; streaming works; cached tokens are reported; the latency',
    'of each. Takes the same flags and variables as the server (canvas-ai-server --help); the others are ignored.',
    '',
    'Exit codes: 0 usable, 1 not usable (the line marked FAIL says why), 2 usage.',
  ].join('\n');
}
