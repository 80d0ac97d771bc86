/**
 * The keys the server writes into its turn store, built and parsed here only (spec/hop-protocol.md §8): a turn
 * (`<escaped session>:<request_id>`), its cancel marker (`<turn key>/cancelled`), the large notices of its
 * conversation (`<turn key>/page/<uuid>`) and the quota ledgers of a session
 * (`quota/<escaped session>`) and of a client address (`quota/address/<escaped bucket>`; an escaped session id has
 * no `/`, so no session's ledger key looks like it). A turn key has a type of its own, so no caller passes a ledger
 * or marker key where a turn is meant, and the quota ledger reads a key with {@link parseTurnKey} instead of cutting
 * strings.
 */

/** The store key of one turn of one session: only {@link turnKey} makes one. */
export type TurnKey = string & { readonly __turnKey: unique symbol };

/** The store key of a turn: scoped to the caller's session (spec §4.2). */
export function turnKey(sessionId: string, requestId: string): TurnKey {
  // request_id may contain ':', and a deployment's own session ids (a user id) may too: escaping the session id
  // keeps "alice" + "x:t1" and "alice:x" + "t1" apart. Cookie session ids (base64url) are left as they are.
  return `${encodeURIComponent(sessionId)}:${requestId}` as TurnKey;
}

/**
 * The session and request id of a turn key, or undefined for any other key (a marker or ledger key: `/` occurs in
 * neither a request_id nor an escaped session id, so none of them parses as a turn).
 */
export function parseTurnKey(key: string): { sessionId: string; requestId: string } | undefined {
  if (key.includes('/')) return undefined;
  const colon = key.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    return { sessionId: decodeURIComponent(key.slice(0, colon)), requestId: key.slice(colon + 1) };
  } catch {
    // Not escaped by turnKey, so not a turn key.
    return undefined;
  }
}

/**
 * The key of a turn's cancel marker (spec/hop-protocol.md §8.5): its own key, so a hop saving the turn can never
 * overwrite the marker.
 */
export function cancelMarkerKey(key: TurnKey): string {
  return `${key}/cancelled`;
}

/**
 * The key of a large notice of a turn's conversation kept apart from its record (stored-pages.ts): `id` is a random
 * uuid, so the key is none of the turn's other keys, and `/` keeps it from parsing as a turn.
 */
export function pageKey(key: TurnKey, id: string): string {
  return `${key}/page/${id}`;
}

/** The key of a session's quota ledger (what it holds in the store, `QuotaStore`). */
export function ledgerKey(sessionId: string): string {
  return `quota/${encodeURIComponent(sessionId)}`;
}

/** The key of a client address's quota ledger (what its sessions hold; `bucket` from `addressBucket`). */
export function addressLedgerKey(bucket: string): string {
  return `quota/address/${encodeURIComponent(bucket)}`;
}
