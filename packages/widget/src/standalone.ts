// The self-contained module (dist/canvas-ai-chat.js): what `/define` registers and exports, plus the protocol's
// shared reducer and its conflict check, so a plain page without a bundler has the README's `applyOutputs` at hand.
export {
  applyOutputs,
  applyOutputsWithResults,
  conflictResult,
  findConflicts,
} from '@canvas-ai/protocol';
export * from './define.js';
