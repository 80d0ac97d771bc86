// @canvas-ai/protocol: the wire schemas and types, the shared layout reducer and the layout helpers a host needs.
// Browser-safe and side-effect free. Server-only code (the request door, the turn rules, the built-in tools) is in
// '@canvas-ai/protocol/server'; the scripted-turn fixtures in '@canvas-ai/protocol/scenario'.
export {
  CSRF_HEADER,
  DECLARED_OUTPUT_TYPES,
  type DeclaredOutputType,
  NDJSON_MEDIA_TYPE,
  PROTOCOL_VERSION,
  REQUIRED_OUTPUT_TYPES,
  TOOL_OUTPUT_TYPES,
} from './wire/constants.js';
export { errorMessage } from './wire/error-message.js';
export { JsonObject, JsonValue, SafeKey } from './wire/json.js';
export { AgentId, CallId, ComponentId, ComponentUuid, RequestId, SlotName } from './wire/ids.js';
export {
  DEFAULT_AGENT_HOPS,
  LIMITS,
  MAX_AGENT_HOPS,
  MAX_TURN_REQUESTS,
  MAX_WAITING_TURN_REQUESTS,
} from './wire/limits.js';
export {
  Plan,
  PLAN_LIMITS,
  PlanAnswer,
  PlanRow,
  type PlanWaiting,
  Question,
  QUESTION_LIMITS,
  ApprovalAnswer,
  ProposedChange,
  ProposedComponent,
  QuestionAnswer,
  ScreenshotAnswer,
  ScreenshotRequest,
  type QuestionWaiting,
  WAIT_KINDS,
  WaitAnswer,
  type WaitKind,
  Waiting,
  type WaitingOf,
} from './wire/waits.js';
export { ComponentNode, Layout, PageValues, Placement, PlacementTarget, Props, Region } from './wire/layout.js';
export {
  ApplyResult,
  Conflict,
  PageValueConflict,
  PropConflict,
  EditComponentsOutput,
  MoveComponentsOutput,
  MoveOperation,
  PlaceComponentsOutput,
  PlaceOperation,
  RemoveComponentsOutput,
  SetPageValueOutput,
  SlotConflict,
  TargetConflict,
  ToolOutput,
  type ToolOutputType,
} from './wire/outputs.js';
export {
  ATTACHMENT_MEDIA_TYPES,
  type Attachment,
  type AttachmentMediaType,
  Capabilities,
  ChatMessage,
  HopContext,
  HopRequest,
  type HopRequestInput,
} from './wire/hop-request.js';
export {
  ActiveTurnStatus,
  AgentRef,
  CancelResponse,
  ContinuingHopResponse,
  FinalHopResponse,
  FinishedTurnStatus,
  FinishReason,
  HealthResponse,
  HopResponse,
  HopUsage,
  TokenCounts,
  TokenResponse,
  TurnStatusResponse,
} from './wire/hop-response.js';
export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  ErrorIssue,
  HopErrorBody,
  isKnownErrorCode,
} from './wire/errors.js';
export {
  ErrorStreamLine,
  HopStreamLine,
  KeepaliveStreamLine,
  OutputsStreamLine,
  ResponseStreamLine,
  TextStreamLine,
} from './wire/hop-stream.js';
export { encodeStreamLine, StreamLineDecoder } from './wire/ndjson.js';
export { AgentSummary, AgentsResponse } from './wire/agents.js';
export { ADMIN_SETTINGS_PATH, AdminSettingsResponse, AgentSettings } from './wire/admin.js';
export {
  Catalog,
  CatalogComponent,
  derivedPropProblems,
  PropDefinition,
  PropType,
  SlotDefinition,
} from './config/catalog.js';
export {
  AgentDefinition,
  AgentsConfig,
  agentsResponse,
  canvasAgentIds,
  PageField,
  type SettingsProblem,
  type SettingsRules,
  settingsProblems,
  ToolSettings,
  ToolName,
} from './config/agents-config.js';
export { type LayoutErrorCode, LayoutError } from './layout/layout-error.js';
export {
  countComponents,
  findComponent,
  findComponentPath,
  findComponentPaths,
  findDuplicateUuid,
  type LayoutPath,
  layoutNodes,
  walkLayout,
} from './layout/layout-tree.js';
export {
  type AppliedOutputs,
  applyOutputs,
  applyOutputsWithResults,
  type CanvasDocument,
} from './layout/apply-outputs.js';
export { layoutProblem } from './layout/layout-problem.js';
export { conflictReason, conflictResult, type CurrentValues, findConflicts } from './layout/conflicts.js';
// The browser's checkers of what a client reads, generated from the schemas above: a client that uses these instead
// of the schemas' `safeParse` bundles no zod.
export {
  AgentsResponseChecker,
  ApplyResultChecker,
  HopErrorBodyChecker,
  HopResponseChecker,
  HopStreamLineChecker,
  LayoutChecker,
  RequestIdChecker,
  TokenResponseChecker,
  ToolOutputChecker,
  TurnStatusResponseChecker,
} from './check/wire-checkers.js';
// Their runtime, for a client's own stored shapes (the widget's saved chat): `check.object({ … })` and the like.
export * as check from './check/checker.js';
export type { Checker, CheckIssue, CheckResult } from './check/checker.js';
