// The framework types of <canvas-ai-chat> (src/canvas-ai-chat/element-props.ts, used by /react and /vue) list the
// element's properties and attributes by hand; these checks hold the lists to what the class declares, read in Node
// from Lit's own record of its reactive properties. The objects below compile only when they name every member of
// the types and nothing else, so a property added to the element and not to the types fails here.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { CanvasAiChat } from '../../src/canvas-ai-chat/canvas-ai-chat.component.js';
import type { CanvasAiChatAttributes, CanvasAiChatPropertyName } from '../../src/canvas-ai-chat/element-props.js';
import type { CanvasAiEventMap } from '../../src/events.js';

const TYPED_PROPERTIES = {
  endpoint: true,
  csrfToken: true,
  tokenEndpoint: true,
  agents: true,
  agentsEndpoint: true,
  credentials: true,
  trace: true,
  conversationId: true,
  maxHops: true,
  retryDelays: true,
  getLayout: true,
  applyOutputs: true,
  getScreenshot: true,
  showPlan: true,
  clearPlan: true,
  outputTypes: true,
  noUndo: true,
  undoInHistory: true,
  noStream: true,
  noPersist: true,
  storageKey: true,
  chatOptions: true,
  strings: true,
} satisfies Record<CanvasAiChatPropertyName, true>;

const TYPED_ATTRIBUTES = {
  'csrf-token': true,
  'token-endpoint': true,
  'agents-endpoint': true,
  'conversation-id': true,
  'max-hops': true,
  'output-types': true,
  'no-undo': true,
  'no-stream': true,
  'no-persist': true,
  'storage-key': true,
} satisfies Record<keyof CanvasAiChatAttributes, true>;

const TYPED_EVENTS = {
  'canvas-ai-turn-start': true,
  'canvas-ai-hop': true,
  'canvas-ai-turn-end': true,
  'canvas-ai-error': true,
  'canvas-ai-undo': true,
  'canvas-ai-resume': true,
} satisfies Record<keyof CanvasAiEventMap, true>;

const sorted = (names: Iterable<string>) => [...names].sort();

describe("the framework types of <canvas-ai-chat> against the element's declarations", () => {
  it('name every public reactive property of the element, and nothing else', () => {
    const declared = [...CanvasAiChat.elementProperties]
      .filter(([, options]) => !options.state)
      .map(([name]) => String(name));

    assert.deepEqual(sorted(Object.keys(TYPED_PROPERTIES)), sorted(declared));
  });

  it('name every observed attribute whose name is not its property name', () => {
    const properties = new Set(Object.keys(TYPED_PROPERTIES));
    const renamed = CanvasAiChat.observedAttributes.filter((attribute) => !properties.has(attribute));

    assert.deepEqual(sorted(Object.keys(TYPED_ATTRIBUTES)), sorted(renamed));
  });

  it('name the events the class documents (@event), the ones custom-elements.json lists', async () => {
    const source = await readFile(
      new URL('../../src/canvas-ai-chat/canvas-ai-chat.component.ts', import.meta.url),
      'utf8',
    );
    const documented = [...source.matchAll(/^ \* @event ([a-z-]+) /gm)].map((match) => match[1] ?? '');

    assert.deepEqual(sorted(Object.keys(TYPED_EVENTS)), sorted(documented));
  });
});
