/**
 * The narration rules (spec §9), shared by every server and the conformance kit so they agree by construction:
 * `progress` is every text the model produced this turn, trimmed, empty ones skipped, joined by a blank line;
 * on the last hop the final answer is stripped off its end and returned as `message` instead.
 */

/** The paragraph separator of `progress`. */
export const NARRATION_SEPARATOR = '\n\n';

/** Joins the turn's model texts into `progress`: trimmed, empty ones skipped, separated by a blank line. */
export function joinNarration(texts: readonly string[]): string {
  return texts
    .map((text) => text.trim())
    .filter((text) => text.length > 0)
    .join(NARRATION_SEPARATOR);
}

/**
 * The last hop's `progress`: the narration with the final answer stripped off its end, so a client that shows
 * both never shows the answer twice. An empty answer strips nothing.
 */
export function stripFinalAnswer(progress: string, answer: string): string {
  const trimmed = answer.trim();
  if (trimmed.length === 0 || !progress.endsWith(trimmed)) return progress;
  const rest = progress.slice(0, progress.length - trimmed.length);
  if (rest.length === 0) return '';
  // Strip only a whole paragraph: the answer must be preceded by the separator.
  return rest.endsWith(NARRATION_SEPARATOR) ? rest.slice(0, -NARRATION_SEPARATOR.length) : progress;
}

/** `progress` and `message` of a turn's last hop, from every model text of the turn (the answer last). */
export function finalNarration(texts: readonly string[]): { progress: string; message: string } {
  const message = (texts.at(-1) ?? '').trim();
  return { progress: stripFinalAnswer(joinNarration(texts), message), message };
}

/** The final `message` of a turn that reached its agent's `max_hops` (no model answer exists to show). */
export function maxHopsMessage(maxHops: number): string {
  return `I stopped after ${maxHops} steps, the most this agent may take in one turn. Send another message to continue.`;
}
