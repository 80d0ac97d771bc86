// Without zod, so a client that reports errors with it bundles no schema.

/** The message of anything thrown: an error's `message`, or the value itself as text (a library may throw a string). */
export function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}
