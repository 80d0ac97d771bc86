/**
 * The large notices of a turn's conversation (the whole page told to the model: 2 MB on a 10,000-component page) kept
 * under keys of their own, written once, instead of inside the turn's record, which every hop writes again and reads
 * back (bench/README.md, layout scaling: re-saving the page was the largest single item of such a hop). The record
 * names each such notice by its place in `messages` and a key; a hop that runs puts the texts back before it uses the
 * messages, and a save writes only the notices that are new since the turn was loaded.
 */
import type { StoredPage } from './turn-state.js';
import { pageKey, type TurnKey } from './store/keys.js';
import type { TurnStore } from './store/turn-store.js';
import type { ModelMessage } from './providers/model-provider.js';

/** A notice at least this long is kept under a key of its own. */
export const STORED_PAGE_CHARS = 64 * 1024;

/**
 * What takes the place of a notice whose key is gone (expired, evicted): the model is told the whole page again on
 * its next decision (the turn's `told` is dropped), so it never decides on a page it was not shown.
 */
export const LOST_PAGE_TEXT = 'An earlier view of the page, left out: the page is shown again below.';

/** A turn as stored, its large notices out of `messages`. */
interface WithPages {
  messages: ModelMessage[];
  stored_pages?: StoredPage[] | undefined;
  told?: unknown;
}

/**
 * The turn with its stored notices put back into `messages` (one read each). A notice that is gone leaves
 * {@link LOST_PAGE_TEXT} in its place and the turn's `told` dropped, so the next decision is shown the page whole.
 */
export async function withStoredPages<T extends WithPages>(store: TurnStore, key: TurnKey, turn: T): Promise<T> {
  const pages = turn.stored_pages ?? [];
  if (pages.length === 0) return turn;
  const texts = await Promise.all(pages.map((page) => store.get(pageKey(key, page.id))));
  const messages = [...turn.messages];
  let lost = false;
  pages.forEach((page, index) => {
    const text = texts[index];
    const found = typeof text === 'string' && text.length === page.chars;
    lost ||= !found;
    messages[page.at] = { role: 'notice', text: found ? text : LOST_PAGE_TEXT };
  });
  if (!lost) return { ...turn, messages };
  const { told: _, ...rest } = turn;
  return { ...rest, messages, stored_pages: pages.filter((_page, index) => typeof texts[index] === 'string') } as T;
}

/** What {@link storePages} leaves to write: the record, and the notices to write before it. */
export interface PagesToStore<T> {
  record: T;
  /** The notices new since the turn was loaded (or about to expire before the record): written before the record. */
  writes: Array<{ key: string; text: string; ttlMs: number }>;
  /** The keys of stored notices the record no longer names: deleted once the record is saved. */
  dropped: string[];
}

/**
 * The record to save with its large notices out of `messages`, given the notices stored when the turn was loaded
 * (`loaded`, texts put back by {@link withStoredPages}). A notice still at its place with the same text keeps its key
 * and is not written again, unless it would expire before the record does: each is written to last twice the
 * record's `ttlMs`. Keys are new random ids, so two runs of the same hop never write the same key.
 */
export function storePages<T extends WithPages>(
  key: TurnKey,
  record: T,
  loaded: { messages: readonly ModelMessage[]; stored_pages?: StoredPage[] | undefined },
  ttlMs: number,
  now: number,
): PagesToStore<T> {
  const before = new Map((loaded.stored_pages ?? []).map((page) => [page.at, page]));
  const kept = new Set<string>();
  const pages: StoredPage[] = [];
  const writes: PagesToStore<T>['writes'] = [];
  const messages = record.messages.map((message, at): ModelMessage => {
    if (message.role !== 'notice' || message.text.length < STORED_PAGE_CHARS) return message;
    const previous = before.get(at);
    const same = previous !== undefined && loadedText(loaded, at) === message.text;
    let page: StoredPage;
    if (same && previous.expires_at >= now + ttlMs) page = previous;
    else {
      page = {
        at,
        id: same ? previous.id : crypto.randomUUID(),
        chars: message.text.length,
        expires_at: now + 2 * ttlMs,
      };
      writes.push({ key: pageKey(key, page.id), text: message.text, ttlMs: 2 * ttlMs });
    }
    kept.add(page.id);
    pages.push(page);
    return { role: 'notice', text: '' };
  });
  const dropped = (loaded.stored_pages ?? []).filter((page) => !kept.has(page.id)).map((page) => pageKey(key, page.id));
  const { stored_pages: _, ...rest } = record;
  const slim = (pages.length > 0 ? { ...rest, messages, stored_pages: pages } : { ...rest, messages }) as T;
  return { record: slim, writes, dropped };
}

function loadedText(loaded: { messages: readonly ModelMessage[] }, at: number): string | undefined {
  const message = loaded.messages[at];
  return message?.role === 'notice' ? message.text : undefined;
}

/** The keys of every notice a stored turn keeps apart (to delete with the turn). */
export function storedPageKeys(key: TurnKey, turn: { stored_pages?: StoredPage[] | undefined }): string[] {
  return (turn.stored_pages ?? []).map((page) => pageKey(key, page.id));
}

/** Characters of the notices a stored turn keeps apart: the session's quota counts them with the record. */
export function storedPageChars(value: unknown): number {
  const pages = (value as { stored_pages?: unknown } | null)?.stored_pages;
  if (!Array.isArray(pages)) return 0;
  let chars = 0;
  for (const page of pages) chars += typeof page?.chars === 'number' ? page.chars + 2 : 0;
  return chars;
}
