import { locate } from '../layout/tree-edit.js';
import type { ScreenshotAnswer, ScreenshotRequest } from '../wire/waits.js';
import { throwProblems } from './format.js';
import { unknownUuidMessage } from './layout-checks.js';
import type { ToolDefinition } from './tool-definition.js';
import { RequestScreenshotInput } from './tool-inputs.js';
import { SuggestionBudget } from './uuid-suggestions.js';

const NAME = 'request_screenshot';

/** Stands in the transcript for the screenshot's result until the host's answer replaces it (spec §20.1). */
export const SCREENSHOT_PENDING_RESULT = 'The screenshot is asked of the host; it follows.';

/** What the model is told when the host sent the image (spec §20.3, worded exactly so). */
export const SCREENSHOT_SENT_RESULT = 'The host sent the screenshot; the image follows.';

/** What the model is told when the host cannot supply one (spec §20.3, worded exactly so). */
export const SCREENSHOT_UNAVAILABLE_RESULT = 'The host cannot take a screenshot, so none was sent.';

/**
 * `request_screenshot` (revision 1.8, spec §20.3): asks the host for a picture of the page, or of the region around
 * a component. It changes nothing and has no output: its hop answers with `waiting` and no model decision, and the
 * host's image (or its "cannot") becomes the result. Offered only to a turn whose client declared `screenshot`.
 */
export const requestScreenshotTool: ToolDefinition<RequestScreenshotInput> = {
  name: NAME,
  description:
    'Look at the page as the person sees it: ask the editor for a screenshot of the whole page, or of the region ' +
    'around one component (component_uuid). Use it when how the page looks matters (spacing, colours, images, ' +
    'what the person points at). The turn pauses until the image comes; it is the result.',
  input: RequestScreenshotInput,
  allowParallel: false,
  waitKind: 'screenshot',
  execute(input, context) {
    const uuid = input.component_uuid;
    if (uuid !== undefined && !locate(context.document.layout, uuid)) {
      const budget = new SuggestionBudget(context.suggestions);
      throwProblems(NAME, [`component_uuid: ${unknownUuidMessage(context.document.layout, uuid, budget)}`]);
    }
    const screenshot: ScreenshotRequest = { component_uuid: uuid ?? null };
    return { result: SCREENSHOT_PENDING_RESULT, wait: { kind: 'screenshot', screenshot } };
  },
};

/** What the model is told for the host's answer (spec §20.3). */
export function screenshotResult(answer: ScreenshotAnswer): string {
  return answer.unavailable ? SCREENSHOT_UNAVAILABLE_RESULT : SCREENSHOT_SENT_RESULT;
}
