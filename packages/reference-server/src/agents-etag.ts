import type { AgentsResponse } from '@canvas-ai/protocol';
import { toBase64Url } from './base64.js';

/**
 * The version of a `GET /api/agents` body (spec §3.1): a strong `ETag` made of the SHA-256 of its JSON, so every
 * instance names the same settings alike and any change of a label, a description or the picker changes it.
 */
export async function agentsEtag(body: AgentsResponse): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(body)));
  return `"${toBase64Url(new Uint8Array(digest)).slice(0, 22)}"`;
}

/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110, section 13.1.2): `*`, or a list of entity tags compared weakly
 * (a `W/` prefix is ignored), so a client that echoes what it was sent, or a proxy that weakened it, gets its 304.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}
