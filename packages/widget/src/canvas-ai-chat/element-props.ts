// What a host's template sets on <canvas-ai-chat>, framework-free: its properties with the element's own types, the
// attributes whose names differ from their property's, and its events. The React and Vue types (react.ts, vue.ts)
// are built from these; test/node/element-props.test.ts holds them to what the element declares.
import type { CanvasAiEventMap } from '../events.js';
import type { CanvasAiChat } from './canvas-ai-chat.component.js';

/** The names of the element's public reactive properties (its `@property` fields). */
export type CanvasAiChatPropertyName =
  | 'endpoint'
  | 'csrfToken'
  | 'tokenEndpoint'
  | 'agents'
  | 'agentsEndpoint'
  | 'credentials'
  | 'trace'
  | 'conversationId'
  | 'maxHops'
  | 'retryDelays'
  | 'getLayout'
  | 'applyOutputs'
  | 'getScreenshot'
  | 'showPlan'
  | 'clearPlan'
  | 'outputTypes'
  | 'noUndo'
  | 'undoInHistory'
  | 'noStream'
  | 'noPersist'
  | 'storageKey'
  | 'chatOptions'
  | 'strings';

/** The element's properties, each optional, typed as the class declares it. */
export type CanvasAiChatProperties = Partial<Pick<CanvasAiChat, CanvasAiChatPropertyName>>;

/**
 * The attributes named apart from their property (`token-endpoint` for `tokenEndpoint`…), as HTML writes them: what a
 * server-rendered page carries. `endpoint`, `credentials`, `trace` and `agents` share their property's name.
 */
export interface CanvasAiChatAttributes {
  'csrf-token'?: string | undefined;
  'token-endpoint'?: string | undefined;
  'agents-endpoint'?: string | undefined;
  'conversation-id'?: string | undefined;
  'max-hops'?: number | string | undefined;
  /** Output types, space-separated. */
  'output-types'?: string | undefined;
  'no-undo'?: boolean | undefined;
  'no-stream'?: boolean | undefined;
  'no-persist'?: boolean | undefined;
  'storage-key'?: string | undefined;
}

/** Each of the element's events as a listener of its own event type, by event name. */
export type CanvasAiChatListeners = { [K in keyof CanvasAiEventMap]: (event: CanvasAiEventMap[K]) => void };
