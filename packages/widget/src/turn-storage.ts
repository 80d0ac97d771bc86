/**
 * What a chat keeps across a page reload (spec §18), in `sessionStorage`: the same tab, gone with it, never shared with
 * another session. The conversation's messages, the running turn (enough to resume it), and the last turn that changed
 * the page (to undo it). Read back through zod: a stale or tampered entry is dropped, never trusted. Framework-free.
 *
 * Any script of the origin can write `sessionStorage`, and it survives reloads: what is kept is text only, never
 * markup, and a chat shows it again with its own escaping, like everything else from outside (security review 2, G6).
 */
import * as z from 'zod/mini';
import { ApplyResult, RequestId, ToolOutput } from '@canvas-ai/protocol';

/** A turn's changes as stored (see `TurnChanges`). */
const StoredChanges = z.object({
  requestId: RequestId,
  outputs: z.array(ToolOutput),
  inverse: z.array(ToolOutput),
  unrecorded: z.array(ToolOutput),
  places: z.optional(
    z.record(
      z.string(),
      z.object({
        component: z.string(),
        region: z.string(),
        row: z.int().check(z.minimum(1)),
        within: z.optional(z.string()),
        gone: z.optional(z.boolean()),
      }),
    ),
  ),
});

/** A running turn as stored: what resuming it needs, and what the chat showed of it. */
export const SavedTurn = z.object({
  requestId: RequestId,
  agent: z.optional(z.string()),
  /** The user's message that started it. */
  message: z.string(),
  /** The latest hop whose response was applied (0: hop 1 was sent, no response applied yet). */
  hop: z.int().check(z.minimum(0)),
  applyResults: z.optional(z.array(ApplyResult)),
  changes: StoredChanges,
  /** The narration shown so far, and the notices of outputs not applied. */
  progress: z.string(),
  notices: z.array(z.string()),
});
export type SavedTurn = z.infer<typeof SavedTurn>;

/**
 * One message of the conversation as kept: its role and text, and how it was shown, as text. Never html: a chat
 * rebuilds each message's markup from these with its own escaping.
 */
export const SavedMessage = z.object({
  role: z.string(),
  /** What the person typed, the answer, a note's transcript line, an error's text, or a turn's narration. */
  text: z.string(),
  /** How it was shown; absent: a plain message (the person's, or one the host gave). */
  kind: z.optional(z.enum(['answer', 'note', 'error', 'narration'])),
  /** A note's summary line, as shown (its `text` is what the model reads). */
  shown: z.optional(z.string()),
  /** The notices shown under a note or a narration block. */
  notices: z.optional(z.array(z.string())),
  /** An error's code. */
  code: z.optional(z.string()),
  /** Where a narration block's turn stood when it was kept. */
  status: z.optional(z.enum(['running', 'done', 'stopped', 'failed'])),
});
export type SavedMessage = z.infer<typeof SavedMessage>;

/** The last turn that changed the page, as stored. */
const StoredUndoable = z.object({ changes: StoredChanges, message: z.string() });

/** Everything one chat keeps (version 2: messages as text only). */
export const SavedChat = z.object({
  version: z.literal(2),
  conversationId: z.optional(z.string()),
  messages: z._default(z.array(SavedMessage), []),
  running: z.optional(SavedTurn),
  /** The last turn that changed the page, until it is undone or another turn starts. */
  undoable: z.optional(StoredUndoable),
});
export type SavedChat = z.infer<typeof SavedChat>;

/**
 * What a chat of version 1 kept: deep-chat's own messages, `html` included. Read once more as version 2: a text
 * message keeps its role and text, an answer or a note its text; any other message (html only) is dropped, never
 * shown as markup.
 */
const SavedChatV1 = z.object({
  version: z.literal(1),
  conversationId: z.optional(z.string()),
  messages: z._default(z.array(z.record(z.string(), z.unknown())), []),
  running: z.optional(SavedTurn),
  undoable: z.optional(StoredUndoable),
});

/** A version 1 record as version 2: every message that was text stays text, the rest is dropped. */
function fromVersion1(saved: z.infer<typeof SavedChatV1>): SavedChat {
  const messages = saved.messages.flatMap((message): SavedMessage[] => {
    const role = typeof message.role === 'string' ? message.role : undefined;
    const custom = (typeof message.custom === 'object' && message.custom !== null ? message.custom : {}) as Record<
      string,
      unknown
    >;
    if (role === undefined) return [];
    if (typeof custom.canvasAiAnswer === 'string') return [{ role, text: custom.canvasAiAnswer, kind: 'answer' }];
    if (typeof custom.canvasAiNote === 'string') return [{ role, text: custom.canvasAiNote, kind: 'note' }];
    if (typeof message.text === 'string' && message.html === undefined) return [{ role, text: message.text }];
    return [];
  });
  return { ...saved, version: 2, messages };
}

/** A kept record of either version, as version 2. */
const StoredChat = z.union([SavedChat, z.pipe(SavedChatV1, z.transform(fromVersion1))]);

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

/** A storage area in memory, for a chat with no page to keep it in (a headless turn, a test). */
export function memoryArea(): ChatStorageArea {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
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
      const parsed = StoredChat.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      this.area?.removeItem(this.key);
    } catch {
      // Unreadable: as if nothing was kept.
    }
    return undefined;
  }

  /** Changes what is kept: `change` gets the current record (or an empty one) and returns the new one. */
  update(change: (saved: SavedChat) => SavedChat): void {
    const next = change(this.load() ?? { version: 2, messages: [] });
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
