// @canvas-ai/protocol/server: what a TypeScript server of the protocol needs beyond the wire schemas: the request
// door, the turn rules of spec §8, the response builders and narration rules of spec §9, and the built-in tools of
// spec §12 with their executor. Never imported by the widget.
export { HopError, type HopErrorOptions, isHopError } from './wire/errors.js';
export type { BodyAllowance } from './door/read-body.js';
export { type DoorOptions, type DoorResult, readHopRequest } from './door/read-hop-request.js';
export { nextMacrotask, type Pause, pauseFor, runSteps, runStepsNow } from './steps/steps.js';
export { type ParseResult, parseHopRequest, parseHopRequestJson } from './parse/parse-hop-request.js';
export {
  admitHop,
  BUSY_RETRY_AFTER_SECONDS,
  type HopAdmission,
  type HopAdmissionInput,
  type StoredTurnSummary,
} from './turn/admit-hop.js';
export { answerResponse, continuingResponse, type HopResponseHead, maxHopsResponse } from './turn/hop-response.js';
export { joinNarration, maxHopsMessage, NARRATION_SEPARATOR } from './narration/narration.js';
export { collectPlacedUuids } from './layout/placed-uuids.js';
export { sniffImageType } from './attachments/sniff.js';
export { type DerivedOf, derivedPropsOf } from './layout/derived-props.js';
export { PropsPrints } from './layout/props-json.js';
export { quoteJson } from './layout/json-quote.js';
export {
  type DocumentChange,
  type DocumentDigest,
  diffDocument,
  diffDocumentStepwise,
  digestChars,
  digestDocument,
  digestDocumentStepwise,
  isDocumentDigest,
  keepingValuesStepwise,
  type KnownValue,
  type Place,
} from './layout/document-digest.js';
export {
  type ToolContext,
  type ToolDefinition,
  type ToolExecution,
  ToolInputError,
  type WaitRequest,
} from './tools/tool-definition.js';
export {
  askQuestionTool,
  DISMISSED_RESULT,
  questionAnswerProblems,
  questionResult,
  QUESTION_PENDING_RESULT,
} from './tools/ask-question.js';
export {
  requestScreenshotTool,
  SCREENSHOT_PENDING_RESULT,
  SCREENSHOT_SENT_RESULT,
  SCREENSHOT_UNAVAILABLE_RESULT,
  screenshotResult,
} from './tools/request-screenshot.js';
export {
  PLAN_APPROVED_RESULT,
  PLAN_PENDING_RESULT,
  PLAN_REVISE_RESULT,
  planAnswerResult,
  proposePlanTool,
} from './tools/propose-plan.js';
export { answerProblems, answerResult } from './tools/wait-answers.js';
export {
  APPROVAL_PENDING_RESULT,
  APPROVAL_UNAVAILABLE_RESULT,
  APPROVED_RESULT,
  approvalProblems,
  needsApproval,
  proposedChange,
  REJECTED_RESULT,
} from './tools/approvals.js';
export { agentToolNames, type BuiltinToolName, builtinTools, offeredTools } from './tools/builtin-tools.js';
export { suggestionWork } from './tools/suggest.js';
export { UUID_SUGGESTION_LIMITS } from './tools/uuid-suggestions.js';
export {
  type ExecuteToolCallsOptions,
  type ExecuteToolCallsResult,
  executeToolCalls,
  outputLimitMessage,
  secondWaitMessage,
  type ToolCall,
  type ToolCallResult,
} from './tools/execute-tool-calls.js';
export { type CatalogPromptOptions, describeCatalog } from './tools/catalog-prompt.js';
export { uuidTree, uuidTreeSteps } from './tools/uuid-tree.js';
export { parseYamlData, type YamlParseResult } from './tools/parse-yaml.js';
