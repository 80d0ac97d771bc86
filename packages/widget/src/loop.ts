// @canvas-ai/widget/loop: the hop loop alone, for a host that renders its own chat (React, Vue, …). Nothing in this
// entry's import graph imports lit, @lit/* or deep-chat (test/loop-entry.test.mjs bundles it to prove so).
export {
  type ApplyInfo,
  type ApplyOutputsHook,
  type ApprovalDecision,
  type ApproveHook,
  type AskPersonHook,
  type CsrfTokenRequest,
  type CsrfTokenSource,
  type DecidePlanHook,
  DEFAULT_MAX_HOPS,
  type GetLayoutHook,
  type HopReport,
  type PersonAnswer,
  type PlanDecision,
  type ResumePoint,
  type RetryReport,
  runTurn,
  STREAM_ACCEPT,
  startTurn,
  type TextReport,
  type Turn,
  type TurnOptions,
  type TurnResult,
} from './hop-loop.js';
export type { GetScreenshotHook, ScreenshotRequest } from './screenshot.js';
// Plans on the host's canvas (spec §20.4): the hooks that draw the planned rows, and how built rows are counted.
export { type ClearPlanHook, type ShowPlanHook, type ShownPlan, rowsBuiltBy } from './plan-placeholders.js';
// Undo (spec §17) and resume after a reload (spec §18), for any host.
export { canUndo, changedPage, noChanges, recordHop, type TurnChanges } from './turn-changes.js';
export {
  historyNote,
  undoNote,
  type UndoOptions,
  type UndoRecording,
  undoRecording,
  undoTurn,
  type UndoReason,
  type UndoResult,
} from './undo.js';
export { type ComponentPlace, type ComponentPlaces, readableName } from './component-places.js';
// What the person reads of an undo (the element's texts, framework-free): components by label and place.
export { undoNotices } from './canvas-ai-chat/notices.js';
export { type ChatStrings, chatStrings, DEFAULT_STRINGS, type PlaceShown } from './canvas-ai-chat/strings.js';
export {
  type ResumableTurn,
  type ResumeOutcome,
  resumeTurn,
  type StandingOptions,
  type TurnStanding,
  turnStanding,
} from './resume.js';
export {
  ChatStorage,
  type ChatStorageArea,
  memoryArea,
  SavedChat,
  SavedMessage,
  SavedTurn,
  sessionArea,
} from './turn-storage.js';
// A turn with no browser: a JSON document in, the document the turn made out.
export { type HeadlessTurnOptions, type HeadlessTurnResult, runHeadlessTurn } from './headless-turn.js';
// The conversation's state (one turn at a time, undo, revert, resume, what is kept), for a host with its own UI.
export {
  ChatSession,
  type ChatSessionOptions,
  type HistoryChange,
  type HistoryUndo,
  type SendInput,
  type TurnEnd,
  type TurnSettings,
  type TurnStart,
  type TurnView,
} from './chat-session.js';
export { DEFAULT_RETRY_DELAYS, type RetryReason, type RetryWait } from './retry.js';
export { TurnError, type TurnErrorKind, type TurnErrorOptions } from './turn-error.js';
// The steps of one hop, for a host that writes its own loop (and for the bench, which times them).
export { type BuildHopRequestInput, buildHopRequest, type HostDocument } from './build-request.js';
export { serializeHopRequest, type SerializedHopRequest } from './serialize-request.js';
export { readHopResponse } from './read-response.js';
export type { StreamHandlers } from './read-stream.js';
