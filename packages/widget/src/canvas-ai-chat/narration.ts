/**
 * The server's text as html (spec §9: `progress` and `message` are plain text a client MUST escape; spec §7: so is
 * an error's `message`): the narration block, the turn's `progress` shown as ONE html message whose status row shows
 * a spinner while hopping and an icon when the turn ends; the final answer; and an error. All are escaped here
 * because deep-chat renders `html` messages as markup (and `text` ones, errors included, as markdown, links and
 * images included, which is why none of them is one).
 */

import type { ChatStrings } from './strings.js';

/** Where a turn stands, as the status row shows it. */
export type ProgressStatus = 'running' | 'done' | 'stopped' | 'failed';

/** Escapes server text for an html message: `&`, `<`, `>` (in that order), then each newline becomes `<br>`. */
export function escapeNarration(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\n', '<br>');
}

/**
 * The html of the narration block: the escaped progress (if any), the turn's notices (outputs the editor could not
 * apply, spec §16.3; escaped too, they quote server and page text), then its status row.
 */
export function progressBlockHtml(
  progress: string,
  status: ProgressStatus,
  notices: readonly string[],
  strings: ChatStrings,
  options: { lastStepNotRun?: boolean } = {},
): string {
  const text =
    progress.length > 0
      ? `<div class="canvas-ai-progress-text" dir="auto">${progressHtml(progress, strings, options)}</div>`
      : '';
  const list =
    notices.length > 0
      ? `<ul class="canvas-ai-notices">${notices.map((notice) => `<li class="canvas-ai-notice" dir="auto">${escapeNarration(notice)}</li>`).join('')}</ul>`
      : '';
  return (
    `<div class="canvas-ai-progress" data-status="${status}">${text}${list}` +
    `<div class="canvas-ai-progress-status" role="status">` +
    `<span class="canvas-ai-progress-icon canvas-ai-progress-icon-${status}" aria-hidden="true"></span>` +
    `<span class="canvas-ai-progress-label">${escapeNarration(strings[STATUS_TEXT[status]])}</span></div></div>`
  );
}

/**
 * The narration as html. After a stop, the last paragraph announced a step that never ran (its tool calls were
 * parked for a hop that was not sent, spec §2): it is marked as such, struck through and labelled in words.
 */
function progressHtml(progress: string, strings: ChatStrings, options: { lastStepNotRun?: boolean }): string {
  if (!options.lastStepNotRun) return escapeNarration(progress);
  const cut = progress.lastIndexOf('\n\n');
  const before = cut < 0 ? '' : `${escapeNarration(progress.slice(0, cut))}<br><br>`;
  const last = progress.slice(cut < 0 ? 0 : cut + 2);
  return (
    `${before}<span class="canvas-ai-not-run"><span class="canvas-ai-not-run-label">${escapeNarration(strings.notRun)}</span> ` +
    `<del>${escapeNarration(last)}</del></span>`
  );
}

/** The status row's text for each status, among the chat's strings. */
const STATUS_TEXT = { running: 'working', done: 'done', stopped: 'stopped', failed: 'failed' } as const;

/** The last paragraph of a turn's narration (spec §9: paragraphs are joined with one blank line). */
export function lastParagraph(progress: string): string {
  return progress.slice(progress.lastIndexOf('\n\n') + 1).trim();
}

/** The html of the final answer: the escaped `message`, nothing else (no markdown: a link or image stays text). */
export function answerHtml(message: string): string {
  return `<div class="canvas-ai-answer" dir="auto">${escapeNarration(message)}</div>`;
}

/** The html of a note of the person's own doing (an undo): its summary and what stayed, escaped like narration. */
export function noteHtml(summary: string, notices: readonly string[]): string {
  const list =
    notices.length > 0
      ? `<ul class="canvas-ai-notices">${notices.map((notice) => `<li class="canvas-ai-notice" dir="auto">${escapeNarration(notice)}</li>`).join('')}</ul>`
      : '';
  return `<div class="canvas-ai-note"><div class="canvas-ai-note-text" dir="auto">${escapeNarration(summary)}</div>${list}</div>`;
}

/**
 * The html of a bubble that tells the person something went wrong (`kind` `error`) or what else happened: the
 * escaped text, then the escaped code when there is one (`provider_error`), nothing else. No markdown: a link or
 * image in a server's or an upstream's text stays text, and nothing is fetched.
 */
export function statusBubbleHtml(text: string, code?: string, kind: 'error' | 'notice' = 'error'): string {
  const codeHtml = code ? `<div class="canvas-ai-${kind}-code">${escapeNarration(code)}</div>` : '';
  return (
    `<div class="canvas-ai-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">` +
    `<div class="canvas-ai-${kind}-text">${escapeNarration(text)}</div>${codeHtml}</div>`
  );
}
