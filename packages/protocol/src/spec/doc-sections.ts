import { ERROR_STATUS, type ErrorCode } from '../wire/errors.js';
import {
  DEFAULT_AGENT_HOPS,
  LIMITS,
  MAX_AGENT_HOPS,
  MAX_TURN_REQUESTS,
  MAX_WAITING_TURN_REQUESTS,
} from '../wire/limits.js';
import { ERROR_CODE_DOCS, LIMIT_DOCS } from './error-docs.js';

/** Tables and sentences of spec/hop-protocol.md that are generated from the code, by section name. */
function generatedSections(): Record<string, string> {
  return { 'error-codes': errorCodeTable(), limits: limitsTable(), 'turn-bound': turnBound() };
}

function turnBound(): string {
  return wrap(
    `A turn is bounded by its agent's \`max_hops\` decisions (${DEFAULT_AGENT_HOPS} unless configured, at most ` +
      `${MAX_AGENT_HOPS}), counted across hops in the stored state, never per request. A turn is therefore at most ` +
      `${MAX_TURN_REQUESTS} requests (\`max_hops + 2\`, see [§2](#2-a-turn-step-by-step)), which a client may use as ` +
      'its safety net against a server that never ends a turn; a turn that waits for the person is at most ' +
      `${MAX_WAITING_TURN_REQUESTS} (\`2 × max_hops + 2\`, one hop more per wait, see [§20.1](#201-waiting-turns)).`,
  );
}

/** Prose wrapped at the spec's line width (115), as the hand-written paragraphs are. */
function wrap(text: string, width = 115): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

function errorCodeTable(): string {
  const rows = (Object.keys(ERROR_STATUS) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${ERROR_STATUS[code]} | ${ERROR_CODE_DOCS[code].when} |`,
  );
  return ['| code | HTTP status | when |', '|---|---|---|', ...rows].join('\n');
}

function limitsTable(): string {
  const rows = (Object.keys(LIMITS) as Array<keyof typeof LIMITS>).map((key) => {
    const value = LIMITS[key];
    const shown = key.endsWith('Bytes')
      ? `${value.toLocaleString('en-US')} bytes (${value >= 1024 * 1024 ? `${value / 1024 / 1024} MiB` : `${value / 1024} KiB`})`
      : value.toLocaleString('en-US');
    return `| \`${key}\` | ${shown} | ${LIMIT_DOCS[key].what} | ${LIMIT_DOCS[key].exceeded} |`;
  });
  return ['| limit | value | what it bounds | over it |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Rewrites every generated section of a markdown text: the lines between `<!-- generated:NAME -->` and
 * `<!-- /generated:NAME -->`. Throws when a known section's markers are missing, so a section is never dropped silently.
 */
export function fillGeneratedSections(
  markdown: string,
  sections: Record<string, string> = generatedSections(),
): string {
  let text = markdown;
  for (const [name, body] of Object.entries(sections)) {
    const open = `<!-- generated:${name} (pnpm spec) -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    if (start === -1 || end === -1 || end < start)
      throw new Error(`hop-protocol.md lacks the markers ${open} … ${close}`);
    text = `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
  }
  return text;
}
