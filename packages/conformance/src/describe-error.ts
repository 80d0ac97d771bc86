/** A thrown error as the why of a failed check: a network failure names its cause, a timeout its limit. */
export function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `a request took longer than ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = (error.cause as { message?: string } | undefined)?.message;
    return error.message === 'fetch failed' && cause ? `cannot reach the server: ${cause}` : error.message;
  }
  return String(error);
}
