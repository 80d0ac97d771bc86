/**
 * What a chat keeps across a page reload (spec §18), in `sessionStorage`: the same tab, gone with it, never shared with
 * another session. The conversation's messages, the running turn (enough to resume it), and the last turn that changed
 * the page (to undo it). Read back through zod: a stale or tampered entry is dropped, never trusted. Framework-free.
 */
import * as z from 'zod';
import { ApplyResult, RequestId, ToolOutput } from '@canvas-ai/protocol';

/** A turn's changes as stored (see `TurnChanges`). */
const StoredChanges = z.object({
  requestId: RequestId,
  outputs: z.array(ToolOutput),
  inverse: z.array(ToolOutput),
  unrecorded: z.array(ToolOutput),
});

/** A running turn as stored: what resuming it needs, and what the chat showed of it. */
export const SavedTurn = z.object({
  requestId: RequestId,
  agent: z.string().optional(),
  /** The user's message that started it. */
  message: z.string(),
  /** The latest hop whose response was applied (0: hop 1 was sent, no response applied yet). */
  hop: z.int().min(0),
  applyResults: z.array(ApplyResult).optional(),
  changes: StoredChanges,
  /** The narration shown so far, and the notices of outputs not applied. */
  progress: z.string(),
  notices: z.array(z.string()),
});
export type SavedTurn = z.infer<typeof SavedTurn>;

/** Everything one chat keeps. `messages` are the chat's own (the element keeps deep-chat's text and html messages). */
export const SavedChat = z.object({
  version: z.literal(1),
  conversationId: z.string().optional(),
  messages: z.array(z.record(z.string(), z.unknown())).default([]),
  running: SavedTurn.optional(),
  /** The last turn that changed the page, until it is undone or another turn starts. */
  undoable: z.object({ changes: StoredChanges, message: z.string() }).optional(),
});
export type SavedChat = z.infer<typeof SavedChat>;

/** The part of the Web Storage API the chat uses (a test or a host may hand in its own). */
export type ChatStorageArea = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The session storage of this page, or undefined where there is none (a sandboxed frame, storage turned off). */
export function sessionArea(): ChatStorageArea | undefined {
  try {
    return globalThis.sessionStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/** One chat's record in a storage area, under `key`. Every failure (no storage, quota, bad JSON) is a no-op. */
export class ChatStorage {
  constructor(
    private readonly key: string,
    private readonly area: ChatStorageArea | undefined = sessionArea(),
  ) {}

  /** What was kept, or undefined when nothing (valid) was. */
  load(): SavedChat | undefined {
    try {
      const text = this.area?.getItem(this.key);
      if (!text) return undefined;
      const parsed = SavedChat.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      this.area?.removeItem(this.key);
    } catch {
      // Unreadable: as if nothing was kept.
    }
    return undefined;
  }

  /** Changes what is kept: `change` gets the current record (or an empty one) and returns the new one. */
  update(change: (saved: SavedChat) => SavedChat): void {
    const next = change(this.load() ?? { version: 1, messages: [] });
    try {
      this.area?.setItem(this.key, JSON.stringify(next));
    } catch {
      // Storage full or refused: a reload then loses the turn, as it would without storage.
    }
  }

  /** Forgets everything kept. */
  clear(): void {
    try {
      this.area?.removeItem(this.key);
    } catch {
      // Nothing to do.
    }
  }
}
