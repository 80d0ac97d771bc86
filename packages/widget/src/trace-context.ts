/**
 * W3C trace context for the hops of a turn (spec §4.7): one trace id per turn, a new parent id on every request, the
 * `sampled` flag set so that a server sampling by its parent records the turn.
 */

/** A random trace id: 16 bytes, lowercase hex, never all zeros (an invalid id). */
export function newTraceId(): string {
  return randomHex(16);
}

/** The `traceparent` header of one request of the turn `traceId`: version 00, a new parent id, sampled. */
export function traceparent(traceId: string): string {
  return `00-${traceId}-${randomHex(8)}-01`;
}

function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  // All zeros is invalid and would be ignored; a chance of 2^-64 at least, but cheap to rule out.
  if (values.every((byte) => byte === 0)) values[0] = 1;
  return Array.from(values, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
