import type { Conflict } from '../wire/outputs.js';

/** Why the reducer refused an output (spec §11). */
export type LayoutErrorCode =
  | 'unknown_target'
  | 'unknown_slot'
  | 'unknown_reference'
  | 'missing_reference'
  | 'duplicate_uuid'
  | 'unknown_uuid'
  | 'move_into_itself'
  | 'conflict';

/** An impossible operation: thrown by the reducer, which then leaves its input untouched. */
export class LayoutError extends Error {
  override readonly name = 'LayoutError';
  readonly code: LayoutErrorCode;
  /** The output that failed, when known. */
  readonly callId: string | undefined;
  /** For `conflict`: the values the person changed that the output would have overwritten (spec §16.2). */
  readonly conflicts: readonly Conflict[];

  constructor(code: LayoutErrorCode, message: string, callId?: string, conflicts: readonly Conflict[] = []) {
    super(message);
    this.code = code;
    this.callId = callId;
    this.conflicts = conflicts;
  }
}
