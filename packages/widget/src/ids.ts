/**
 * A random id for `request_id` and `conversation_id` (the protocol allows `[A-Za-z0-9._:-]`, 1–128 characters).
 * `crypto.randomUUID` only exists in secure contexts, so a plain-http page falls back to `getRandomValues`.
 */
export function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
