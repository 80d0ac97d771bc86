// @canvas-ai/conformance: the conformance kit, programmatically (Node). Re-exports only.
export * from './check.js';
export * from './spec-refs.js';
export * from './http-client.js';
export * from './cookie-jar.js';
export * from './plan.js';
export * from './load-inputs.js';
export * from './run-conformance.js';
export * from './reporter.js';
export * from './cli-args.js';
export { main, type CliIo } from './cli-main.js';
export { MUST_MATRIX, matrixFigures, type MustRow } from './must-matrix.js';
