// @canvas-ai/conformance: the conformance kit, programmatically (Node). Re-exports only, each name listed: run the
// checks, read and print the report, list the checks of a level, and the MUST → check matrix. The command line's
// parser and entry (`cli-args.ts`, `cli-main.ts`) and what checks use to talk to a server stay inside the kit.
export type {
  CheckResult,
  CheckStatus,
  CheckVerdict,
  ConformanceCheck,
  ConformanceLevel,
  ConformanceReport,
} from './check.js';
export type { SpecRef } from './spec-refs.js';
export { runConformance, type ConformanceOptions } from './run-conformance.js';
export {
  type ConformanceInputs,
  type InputFolders,
  KIT_FIXTURES_DIR,
  loadConformanceInputs,
} from './load-inputs.js';
export { planChecks, type PlanInputs } from './plan.js';
export { formatClaimVerdict, formatClosingLine, formatResultLine, formatSummary } from './reporter.js';
export type { Claim, OptionalPart, Revision } from './claims.js';
export { MUST_MATRIX, matrixFigures, type MustRow } from './must-matrix.js';
export {
  type ClientConformanceOptions,
  runClientConformance,
} from './client/run-client-conformance.js';
export { CLIENT_CHECKS, type ClientCheck } from './client/client-checks.js';
export { CLIENT_SCENARIOS, type ClientScenario, type ScriptedAnswer } from './client/client-scenarios.js';
