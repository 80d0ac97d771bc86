/**
 * What a chat keeps across a page reload (spec §18), in `sessionStorage`: the same tab, gone with it, never shared with
 * another session. The conversation's messages, the running turn (enough to resume it), and the last turn that changed
 * the page (to undo it). Read back through the protocol's checkers: a stale or tampered entry is dropped, never
 * trusted. Framework-free.
 *
 * Any script of the origin can write `sessionStorage`, and it survives reloads: what is kept is text only, never
 * markup, and a chat shows it again with its own escaping, like everything else from outside (security review 2, G6).
 */
import {
  type ApplyResult,
  ApplyResultChecker,
  type Checker,
  check,
  RequestIdChecker,
  ToolOutputChecker,
} from '@canvas-ai/protocol';
import type { TurnChanges } from './turn-changes.js';

/** A turn's changes as stored (see `TurnChanges`). */
const StoredChanges = check.object<TurnChanges>({
  requestId: RequestIdChecker,
  outputs: check.array(ToolOutputChecker),
  inverse: check.array(ToolOutputChecker),
  unrecorded: check.array(ToolOutputChecker),
  places: check.optional(
    check.record(
      check.string(),
      check.object({
        component: check.string(),
        region: check.string(),
        row: check.int([check.minimum(1)]),
        within: check.optional(check.string()),
        gone: check.optional(check.boolean()),
      }),
    ),
  ),
});

/** A running turn as stored: what resuming it needs, and what the chat showed of it. */
export interface SavedTurn {
  requestId: string;
  agent?: string | undefined;
  /** The user's message that started it. */
  message: string;
  /** The latest hop whose response was applied (0: hop 1 was sent, no response applied yet). */
  hop: number;
  applyResults?: ApplyResult[] | undefined;
  changes: TurnChanges;
  /** The narration shown so far, and the notices of outputs not applied. */
  progress: string;
  notices: string[];
}
export const SavedTurn: Checker<SavedTurn> = check.object<SavedTurn>({
  requestId: RequestIdChecker,
  agent: check.optional(check.string()),
  message: check.string(),
  hop: check.int([check.minimum(0)]),
  applyResults: check.optional(check.array(ApplyResultChecker)),
  changes: StoredChanges,
  progress: check.string(),
  notices: check.array(check.string()),
});

/**
 * One message of the conversation as kept: its role and text, and how it was shown, as text. Never html: a chat
 * rebuilds each message's markup from these with its own escaping.
 */
export interface SavedMessage {
  role: string;
  /** What the person typed, the answer, a note's transcript line, an error's text, or a turn's narration. */
  text: string;
  /** How it was shown; absent: a plain message (the person's, or one the host gave). */
  kind?: 'answer' | 'note' | 'error' | 'narration' | undefined;
  /** A note's summary line, as shown (its `text` is what the model reads). */
  shown?: string | undefined;
  /** The notices shown under a note or a narration block. */
  notices?: string[] | undefined;
  /** An error's code. */
  code?: string | undefined;
  /** Where a narration block's turn stood when it was kept. */
  status?: 'running' | 'done' | 'stopped' | 'failed' | undefined;
}
export const SavedMessage: Checker<SavedMessage> = check.object<SavedMessage>({
  role: check.string(),
  text: check.string(),
  kind: check.optional(check.oneOf(['answer', 'note', 'error', 'narration'])),
  shown: check.optional(check.string()),
  notices: check.optional(check.array(check.string())),
  code: check.optional(check.string()),
  status: check.optional(check.oneOf(['running', 'done', 'stopped', 'failed'])),
});

/** The last turn that changed the page, as stored. */
interface StoredUndoable {
  changes: TurnChanges;
  message: string;
}
const StoredUndoable = check.object<StoredUndoable>({ changes: StoredChanges, message: check.string() });

/** Everything one chat keeps (version 2: messages as text only). */
export interface SavedChat {
  version: 2;
  conversationId?: string | undefined;
  messages: SavedMessage[];
  running?: SavedTurn | undefined;
  /** The last turn that changed the page, until it is undone or another turn starts. */
  undoable?: StoredUndoable | undefined;
}
export const SavedChat: Checker<SavedChat> = check.object<SavedChat>({
  version: check.literal(2),
  conversationId: check.optional(check.string()),
  messages: check.withDefault(check.array(SavedMessage), () => []),
  running: check.optional(SavedTurn),
  undoable: check.optional(StoredUndoable),
});

/**
 * What a chat of version 1 kept: deep-chat's own messages, `html` included. Read once more as version 2: a text
 * message keeps its role and text, an answer or a note its text; any other message (html only) is dropped, never
 * shown as markup.
 */
interface SavedChatV1 extends Omit<SavedChat, 'version' | 'messages'> {
  version: 1;
  messages: Record<string, unknown>[];
}
/** Any value, kept as it is (a version 1 message's fields are read one by one in {@link fromVersion1}). */
const anyValue = new check.Checker<unknown>((value) => value);
const SavedChatV1 = check.object<SavedChatV1>({
  version: check.literal(1),
  conversationId: check.optional(check.string()),
  messages: check.withDefault(check.array(check.record(check.string(), anyValue)), () => []),
  running: check.optional(SavedTurn),
  undoable: check.optional(StoredUndoable),
});

/** A version 1 record as version 2: every message that was text stays text, the rest is dropped. */
function fromVersion1(saved: SavedChatV1): SavedChat {
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

/** A kept record of either version, as version 2; undefined when it is neither. */
function storedChat(value: unknown): SavedChat | undefined {
  const current = SavedChat.safeParse(value);
  if (current.success) return current.data;
  const version1 = SavedChatV1.safeParse(value);
  return version1.success ? fromVersion1(version1.data) : undefined;
}

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
      const saved = storedChat(JSON.parse(text));
      if (saved) return saved;
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
