// @canvas-ai/protocol/mock: msw handlers of a scripted Canvas AI server (browser-safe). Re-exports only.
export * from './handlers.js';
export * from './turns.js';
