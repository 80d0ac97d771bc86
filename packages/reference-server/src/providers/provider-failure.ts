import { errorMessage } from '@canvas-ai/protocol';

/**
 * What the user is told of any failed model call (the code `provider_error` comes with it). Upstream text is never
 * shown to the user: it may hold the endpoint's URL, and markdown made to look like the page's own (spec §7).
 */
export const MODEL_UNAVAILABLE =
  'The model is unavailable right now, so this turn stopped. Try again in a minute; if it keeps failing, the ' +
  "server's log says why.";

/** The low-level cause of a connection error (ECONNREFUSED, a TLS failure), for the log. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause === undefined ? '' : ` (${firstLine(errorMessage(cause))})`;
}

/** The first line of an upstream message, at most 300 characters: enough for the log, bounded. */
export function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
