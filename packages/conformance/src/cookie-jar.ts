/**
 * The smallest cookie jar that keeps a session: name → value from `Set-Cookie`, sent back as one `Cookie` header.
 * The kit talks to one server, so domains and paths are ignored; `Max-Age=0` or a past `Expires` removes a cookie.
 */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Stores the cookies a response sets. */
  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      if (isExpired(attributes)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  /** The `Cookie` header value, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** How many cookies are held. */
  get size(): number {
    return this.#cookies.size;
  }
}

function isExpired(attributes: readonly string[]): boolean {
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=').map((part) => part.trim());
    if (key.toLowerCase() === 'max-age' && Number(value) <= 0) return true;
    if (key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now()) return true;
  }
  return false;
}
