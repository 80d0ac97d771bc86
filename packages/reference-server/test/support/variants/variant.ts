import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { CanvasAiApp } from '../../../src/app.js';

/**
 * A broken variant of the reference server: one planted bug, the rule group of the MUST → check matrix it breaks
 * (spec/conformance.md §6), the check that must catch it (one of that group's), and the other checks that see the
 * same bug (ids, or families such as `scenario.*` for a bug every scenario runs into). The kit must fail the first
 * and may fail only these: a failure elsewhere would name the wrong rule. Each one listed must fail too.
 */
export interface BrokenVariant {
  bug: string;
  group: string;
  caughtBy: string;
  alsoFailing?: readonly string[];
  build(fixtures: Fixtures): CanvasAiApp;
}
