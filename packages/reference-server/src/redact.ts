/** Query parameters whose values are secrets by their name (`?password=`, `?api_key=`, `?token=`, …). */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|sig|cred/i;

/**
 * A URL as logs and messages may show it (spec §7: what an error may reveal): the userinfo password and every
 * query parameter named like a secret become `***`. Anything that is not a URL becomes a placeholder, never itself.
 */
export function redactUrl(url: string, placeholder = 'the URL given'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return placeholder;
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...new Set(parsed.searchParams.keys())]) {
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, '***');
  }
  // URLSearchParams escapes the asterisks; a reader wants them as they are.
  return parsed.toString().replace(/%2A%2A%2A/g, '***');
}

/** `text` with every URL in it redacted as {@link redactUrl} does (an error message that quotes its URL). */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, (url) => redactUrl(url, '(a URL)'));
}
