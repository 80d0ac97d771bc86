// @canvas-ai/protocol/node: Node-only helpers (file system). Re-exports only.
export * from './read-yaml.js';
export * from './load-fixtures.js';
export * from './fixtures-module.js';
export * from './usage-error.js';
