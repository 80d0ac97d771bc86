import type { DeepChat } from 'deep-chat';

/**
 * The `<deep-chat>` element. deep-chat's declarations import their own files without extensions, which NodeNext
 * resolution cannot follow, so its `HTMLElement` base class is lost; it is restated here.
 */
export type DeepChatInstance = DeepChat & HTMLElement;

export type { Signals } from 'deep-chat/dist/types/handler.js';
export type { MessageContent } from 'deep-chat/dist/types/messages.js';
export type { CustomNames } from 'deep-chat/dist/types/names.js';
