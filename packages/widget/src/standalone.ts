// The self-contained module (dist/canvas-ai-chat.js): what `/define` registers and exports, plus the protocol's
// shared reducer and its conflict check, so a plain page without a bundler has the README's `applyOutputs` at hand.
// A browser file only: it imports deep-chat statically and defines the tags as it loads, with no top-level await
// (define.ts's, for Node, would let a page's next module script run before the tags are defined).
import 'deep-chat';
import { defineElements } from './define-elements.js';

export {
  applyOutputs,
  applyOutputsWithResults,
  conflictResult,
  findConflicts,
} from '@canvas-ai/protocol';
export * from './index.js';

defineElements();
