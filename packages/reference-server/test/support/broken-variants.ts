// Deliberately broken variants of the reference server, for proving that the conformance kit catches real bugs.
// Each one is the real app with ONE small, honest fault at a seam a deployment really has (support/variants/seams.ts):
// a wrapper around the fetch handler (what a proxy or middleware could do), a turn store, a model or a config of its
// own. No bug flag in src/. One variant at least per rule group of the MUST → check matrix (spec/conformance.md §6).
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import { startServer, type RunningServer } from '../../src/node.js';
import { CLARIFICATION_VARIANTS } from './variants/clarification-variants.js';
import { COEDIT_VARIANTS } from './variants/coedit-variants.js';
import { DOOR_ROW_VARIANTS } from './variants/door-row-variants.js';
import { DOOR_VARIANTS } from './variants/door-variants.js';
import { HOST_VARIANTS } from './variants/host-variants.js';
import { OUTPUT_ROW_VARIANTS } from './variants/output-row-variants.js';
import { QUOTA_VARIANTS } from './variants/quota-variants.js';
import { STATUS_VARIANTS } from './variants/status-variants.js';
import { STREAM_VARIANTS } from './variants/stream-variants.js';
import { TOOL_VARIANTS } from './variants/tool-variants.js';
import { TURN_VARIANTS } from './variants/turn-variants.js';
import type { VariantApp } from './variants/seams.js';
import { APPROVAL_VARIANTS } from './variants/approval-variants.js';
import { SCREENSHOT_VARIANTS } from './variants/screenshot-variants.js';
import { WAIT_VARIANTS } from './variants/wait-variants.js';
import { PLAN_VARIANTS } from './variants/plan-variants.js';
import type { BrokenVariant } from './variants/variant.js';

export type { BrokenVariant } from './variants/variant.js';

/** The variants, by name. */
export const BROKEN_VARIANTS = {
  ...DOOR_VARIANTS,
  ...DOOR_ROW_VARIANTS,
  ...HOST_VARIANTS,
  ...TURN_VARIANTS,
  ...QUOTA_VARIANTS,
  ...TOOL_VARIANTS,
  ...OUTPUT_ROW_VARIANTS,
  ...STATUS_VARIANTS,
  ...STREAM_VARIANTS,
  ...COEDIT_VARIANTS,
  ...CLARIFICATION_VARIANTS,
  ...WAIT_VARIANTS,
  ...SCREENSHOT_VARIANTS,
  ...PLAN_VARIANTS,
  ...APPROVAL_VARIANTS,
} satisfies Record<string, BrokenVariant>;

/** The name of a broken variant. */
export type BrokenVariantName = keyof typeof BROKEN_VARIANTS;

/**
 * Starts a broken variant on 127.0.0.1 (port 0); `streams` says whether it still streams (most variants rewrite JSON
 * answers, so serve every hop as JSON, and then do not claim streaming).
 */
export async function startBrokenServer(
  name: BrokenVariantName,
  fixtures: Fixtures,
): Promise<RunningServer & { streams: boolean }> {
  const app: VariantApp = BROKEN_VARIANTS[name].build(fixtures);
  return { ...(await startServer(app, { port: 0, host: '127.0.0.1' })), streams: app.streams !== false };
}
