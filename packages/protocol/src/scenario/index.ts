// @canvas-ai/protocol/scenario: scripted turns (spec §15) — the fixture schema, the placeholders `{{placed.N}}` and
// `{{selected}}`, matching a turn to its scenario, driving and checking one, and the malformed-request table.
export {
  ExpectedOutput,
  Scenario,
  ScenarioAttachment,
  ScenarioHop,
  ScenarioReply,
  ScenarioToolCall,
} from './scenario.js';
export type { Fixtures } from './fixtures.js';
export { collectPlacedComponentIds, PLACED_REF, resolvePlacedRefs, SELECTED_REF } from './placed-refs.js';
export {
  matchScenario,
  noScenarioAnswer,
  normalizeUserMessage,
  REAL_MODEL_HINT,
  type ScenarioQuery,
  scenarioMessagesFor,
} from './match-scenario.js';
export { checkHop, checkOutputs } from './check-hop.js';
export { decidedReplies } from './decided-replies.js';
export { answerImage, scenarioAnswer } from './scenario-answers.js';
export { type DriveScenarioOptions, type DrivenHop, driveScenario, type ScenarioRun } from './drive-scenario.js';
export { MalformedRequestCase, MalformedRequestTable, malformedRequestBody } from './malformed-requests.js';
