import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ConformanceLevel } from './check.js';
import { type Claim, NEWEST_REVISION, type OptionalPart, PART_NAMES, REVISIONS, type Revision } from './claims.js';
import { errorMessage } from '@canvas-ai/protocol';
import { UsageError } from '@canvas-ai/protocol/node';

/** One command-line flag: its value's placeholder (none for a switch), default and help. */
interface FlagSpec {
  type: 'string' | 'boolean';
  value?: string;
  default?: string;
  help: string;
}

/** The CLI's flags as data: the parser and `--help` are both made from this. */
export const CONFORMANCE_FLAGS = {
  endpoint: {
    type: 'string',
    value: 'URL',
    help: 'A server: the hop endpoint, e.g. http://127.0.0.1:8787/api/hop (cancel is DELETE URL/<request_id>).',
  },
  client: {
    type: 'string',
    value: 'COMMAND',
    help: 'A client instead: the shell command that runs one turn of it; {server}, {message} and {agent} are filled in, SIGINT means stop (spec/conformance.md §7).',
  },
  'token-endpoint': {
    type: 'string',
    value: 'URL',
    help: 'GET it for the CSRF token and session cookie; omit it when the server does not check CSRF.',
  },
  'agents-endpoint': { type: 'string', value: 'URL', help: 'GET it to check the agents list against its schema.' },
  level: {
    type: 'string',
    value: '1|2',
    default: '1',
    help: '1: any server, any model. 2: also the scenario fixtures (a server in scripted mode).',
  },
  revision: {
    type: 'string',
    value: 'X.Y',
    default: NEWEST_REVISION,
    help: `The revision of canvas-ai/1 the server or client claims (${REVISIONS.join(', ')}; spec §14.1): the checks of later revisions are skipped.`,
  },
  parts: {
    type: 'string',
    value: 'LIST',
    default: PART_NAMES.join(','),
    help: `The optional parts the server or client claims, comma-separated, or none (${PART_NAMES.join(', ')}): the checks (a client: the scenarios) of the others are skipped.`,
  },
  'session-turns': {
    type: 'string',
    value: 'N',
    help: 'The turns your server lets one session run at once (spec §8.8; the reference server: 32): level 2 drives a fresh session to it. Default: not probed.',
  },
  scenarios: { type: 'string', value: 'DIR', help: 'The scenarios level 2 plays (default: <fixtures>/scenarios).' },
  fixtures: {
    type: 'string',
    value: 'DIR',
    help: 'malformed-requests.yaml, layouts/ and attachments/ (default: the fixtures the kit ships, --print-fixtures).',
  },
  json: { type: 'string', value: 'FILE', help: 'Also write the report as JSON to FILE.' },
  prompt: { type: 'string', value: 'TEXT', default: 'Hello', help: 'The message of the level-1 turn.' },
  'timeout-ms': { type: 'string', value: 'MS', default: '120000', help: 'Most milliseconds one request may take.' },
  'print-fixtures': {
    type: 'boolean',
    help: 'Print the folder of the fixtures this kit ships (for your server in scripted mode) and exit.',
  },
  help: { type: 'boolean', help: 'Show this help.' },
} as const satisfies Record<string, FlagSpec>;

/** The most turns `--session-turns` drives one session to: a run opens one more than it. */
const MAX_SESSION_TURNS = 1000;

/** The flags that mean something only for a server (those with no default, so given is seen). */
const SERVER_ONLY_FLAGS = ['token-endpoint', 'agents-endpoint', 'scenarios', 'fixtures', 'session-turns'] as const;

/** The command line, parsed and checked. */
export interface CliOptions {
  endpoint: string;
  /** The client's adapter command: check a client instead of a server. */
  client?: string;
  tokenEndpoint?: string;
  agentsEndpoint?: string;
  level: ConformanceLevel;
  /** What the server or client claims. */
  claim?: Claim;
  /** The turns the server lets one session run at once, when given (level 2 drives a session to it). */
  sessionTurns?: number;
  scenariosDir?: string;
  fixturesDir?: string;
  json?: string;
  prompt: string;
  timeoutMs: number;
  help: boolean;
  printFixtures: boolean;
}

/** Parses the arguments (a leading `--`, as `pnpm conformance -- …` passes it, is ignored); throws {@link UsageError}. */
export function parseConformanceArgs(argv: readonly string[]): CliOptions {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  let values: Record<string, string | boolean | undefined>;
  try {
    const options: ParseArgsConfig['options'] = Object.fromEntries(
      Object.entries(CONFORMANCE_FLAGS).map(([name, flag]: [string, FlagSpec]) => [
        name,
        { type: flag.type, ...(flag.default === undefined ? {} : { default: flag.default }) },
      ]),
    );
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const help = values.help === true;
  const printFixtures = values['print-fixtures'] === true;
  if (help || printFixtures)
    return {
      endpoint: '',
      level: 1,
      claim: { revision: NEWEST_REVISION, parts: PART_NAMES },
      prompt: 'Hello',
      timeoutMs: 120_000,
      help,
      printFixtures,
    };
  const client = values.client as string | undefined;
  if (client !== undefined && values.endpoint !== undefined)
    throw new UsageError('Give --endpoint (check a server) or --client (check a client), not both.');
  if (client === undefined && values.endpoint === undefined)
    throw new UsageError('--endpoint URL is required (or --client COMMAND, to check a client).');
  if (client !== undefined && client.trim() === '')
    throw new UsageError('--client needs the command that runs the client.');
  const level = Number(values.level);
  if (level !== 1 && level !== 2) throw new UsageError(`--level must be 1 or 2, not "${values.level}".`);
  const timeoutMs = Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(`--timeout-ms must be a positive whole number, not "${values['timeout-ms']}".`);
  if (level === 1 && values.scenarios !== undefined) throw new UsageError('--scenarios is for level 2: add --level 2.');
  const sessionTurns = values['session-turns'] === undefined ? undefined : Number(values['session-turns']);
  if (
    sessionTurns !== undefined &&
    !(Number.isInteger(sessionTurns) && sessionTurns >= 1 && sessionTurns <= MAX_SESSION_TURNS)
  )
    throw new UsageError(
      `--session-turns must be a whole number from 1 to ${MAX_SESSION_TURNS}, not "${values['session-turns']}".`,
    );
  if (level === 1 && sessionTurns !== undefined) throw new UsageError('--session-turns is for level 2: add --level 2.');
  const claim: Claim = { revision: revisionOf(values.revision as string), parts: partsOf(values.parts as string) };
  if (client !== undefined) {
    const serverOnly = SERVER_ONLY_FLAGS.find((flag) => values[flag] !== undefined);
    if (serverOnly !== undefined) throw new UsageError(`--${serverOnly} is for a server; a client's run takes none.`);
    return {
      endpoint: '',
      client,
      level: 1,
      claim,
      json: values.json as string | undefined,
      prompt: values.prompt as string,
      timeoutMs,
      help,
      printFixtures,
    };
  }
  return {
    endpoint: httpUrl('endpoint', values.endpoint as string),
    tokenEndpoint: optionalUrl('token-endpoint', values['token-endpoint']),
    agentsEndpoint: optionalUrl('agents-endpoint', values['agents-endpoint']),
    level,
    claim,
    sessionTurns,
    scenariosDir: values.scenarios as string | undefined,
    fixturesDir: values.fixtures as string | undefined,
    json: values.json as string | undefined,
    prompt: values.prompt as string,
    timeoutMs,
    help,
    printFixtures,
  };
}

/** The `--help` text, made from {@link CONFORMANCE_FLAGS}. */
export function conformanceHelp(): string {
  const flags = (Object.entries(CONFORMANCE_FLAGS) as Array<[string, FlagSpec]>).map(([name, flag]) => {
    const usage = `  --${name}${flag.value ? ` ${flag.value}` : ''}`;
    const notes = flag.default === undefined ? [] : [`default ${flag.default}`];
    return `${usage.padEnd(28)}${flag.help}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  });
  return [
    'canvas-ai-conformance: checks a Canvas AI hop server, or a client, against spec/hop-protocol.md, check by check.',
    '',
    'Usage: canvas-ai-conformance --endpoint URL [--token-endpoint URL] [--agents-endpoint URL] [--level 1|2] [--revision X.Y] [--parts LIST] [--session-turns N] [--scenarios DIR] [--json FILE]',
    '       canvas-ai-conformance --client COMMAND [--revision X.Y] [--parts LIST] [--json FILE]      (a client: the kit is the server)',
    '',
    'Options:',
    ...flags,
    '',
    'Exit status: 0 every check passed, 1 a check failed, 2 a usage error (bad flag, unreadable fixtures).',
    'What each check enforces: spec/conformance.md.',
  ].join('\n');
}

function revisionOf(value: string): Revision {
  if (!(REVISIONS as readonly string[]).includes(value))
    throw new UsageError(`--revision must be one of ${REVISIONS.join(', ')}, not "${value}".`);
  return value as Revision;
}

function partsOf(value: string): OptionalPart[] {
  if (value.trim() === 'none') return [];
  const parts = value.split(',').map((part) => part.trim());
  const unknown = parts.find((part) => !(PART_NAMES as string[]).includes(part));
  if (unknown !== undefined) throw new UsageError(`--parts takes ${PART_NAMES.join(', ')} or none, not "${unknown}".`);
  return parts as OptionalPart[];
}

function httpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${flag} must be a URL, not "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--${flag} must be an http or https URL, not "${value}".`);
  return value;
}

function optionalUrl(flag: string, value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? httpUrl(flag, value) : undefined;
}
