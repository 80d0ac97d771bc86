/**
 * A look at the page (spec §20.3): the host's screenshot hook, and the answer the loop sends for a screenshot wait —
 * the image as the hop's one attachment, or `unavailable` when the host has no hook, gives nothing, fails, or gives
 * an image the server would refuse by its size.
 */
import { LIMITS, type ScreenshotAnswer, type WaitingOf } from '@canvas-ai/protocol';

/** What the host is asked to show: the region around `componentUuid`, or the whole page when it is absent. */
export interface ScreenshotRequest {
  componentUuid?: string | undefined;
}

/**
 * Takes a picture of the page as the person sees it (or of the region around a component): a PNG, JPEG, GIF or WebP
 * `Blob` of at most 5 MiB, or `null` when the host cannot this time. Given, the loop declares the wait `screenshot`
 * on hop 1, so only then is the agent offered `request_screenshot`.
 */
export type GetScreenshotHook = (
  request: ScreenshotRequest,
  info: { requestId: string; hop: number; signal: AbortSignal },
) => Blob | null | undefined | Promise<Blob | null | undefined>;

/** The answer to a screenshot wait and the image it carries (none for `unavailable`). */
export interface ScreenshotReply {
  answer: ScreenshotAnswer;
  images: Blob[];
}

/**
 * Asks the host for the screenshot a wait asks for. `take` is the host's hook called through the loop's guard (it
 * rethrows a stop); any other failure of the host, like no hook at all, answers `unavailable`: the model is told the
 * host cannot, and the turn goes on (spec §20.3).
 */
export async function answerScreenshot(
  waiting: WaitingOf<'screenshot'>,
  take: ((request: ScreenshotRequest) => Promise<Blob | null | undefined>) | undefined,
  isStop: (error: unknown) => boolean,
): Promise<ScreenshotReply> {
  const unavailable: ScreenshotReply = {
    answer: { kind: 'screenshot', call_id: waiting.call_id, unavailable: true },
    images: [],
  };
  if (!take) return unavailable;
  const uuid = waiting.screenshot.component_uuid;
  let image: Blob | null | undefined;
  try {
    image = await take(uuid === null ? {} : { componentUuid: uuid });
  } catch (error) {
    if (isStop(error)) throw error;
    return unavailable;
  }
  if (!image || image.size === 0 || image.size > LIMITS.maxAttachmentBytes) return unavailable;
  return { answer: { kind: 'screenshot', call_id: waiting.call_id, unavailable: false }, images: [image] };
}
