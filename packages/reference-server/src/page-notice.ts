import type { HopContext } from '@canvas-ai/protocol';
import { type Pause, type PropsPrints, runSteps } from '@canvas-ai/protocol/server';
import { describeExtra, describePageSteps, describeSelection } from './agents/page-description.js';
import type { PersonChangesNotice } from './person-changes.js';
import type { ModelMessage } from './providers/model-provider.js';
import type { PageTold } from './turn-state.js';

/** How a notice that shows the whole page begins. */
const WHOLE_PAGE = '# The page now';

/**
 * The most whole pages the conversation holds, the one about to be appended included. A person who changes much of
 * the page before every hop would otherwise make every call carry one more copy of it; past the bound the earlier
 * copies are left out (a rewrite: the prompt cache misses from the first of them on, once in that many re-sends).
 */
const MAX_WHOLE_PAGES = 2;

/** What the model is told of the page before one decision, and what it knows of it afterwards. */
export interface PageNotice {
  /** The notices to append (none when nothing changed that no tool result or person notice told). */
  texts: string[];
  told: PageTold;
  /** Whether the whole page is among them. */
  whole: boolean;
}

/** What {@link pageNotice} works from. */
export interface PageNoticeInput {
  /** This request's context: the page as it is now. */
  context: HopContext;
  /** The hop's props cache, shared with the change detection. */
  prints: PropsPrints;
  /** What the model was last told of the selection and the host's extra; absent when it was never shown the page. */
  told: PageTold | undefined;
  /** The notice about the person's edits this hop, if they made any (already appended by the hop). */
  person: PersonChangesNotice | undefined;
  /** Awaited between the steps of describing the page: a large page is no single long step (spec §13.2). */
  pause: Pause;
}

/**
 * The page as the model needs it before a decision, appended to the conversation (never rewritten, so each call's
 * prompt starts with the previous call's and a provider's prompt cache reuses it):
 * - the whole page when the model was never shown it (the turn's first decision, or a turn stored before the page
 *   left the system prompt), or when the person notice had to count or cut changes, or when what changed would take
 *   more words than the page;
 * - else only what no tool result or person notice told: a new selection, new host data.
 * The model's own changes are in its tool results, the person's in their notice (spec §16.1).
 */
export async function pageNotice({ context, prints, told, person, pause }: PageNoticeInput): Promise<PageNotice> {
  const extra = describeExtra(context.extra);
  const now: PageTold = { selected: context.selected_component ?? null, extra: fingerprint(extra ?? '') };
  const describe = () => runSteps(describePageSteps(context, prints), pause);
  const whole = (again: boolean, page: string): PageNotice => ({
    texts: [`${WHOLE_PAGE}${again ? ' (shown whole again: it replaces what you knew of it)' : ''}\n\n${page}`],
    told: now,
    whole: true,
  });
  if (told === undefined) return whole(false, await describe());
  if (person && !person.complete) return whole(true, await describe());
  const changed: string[] = [];
  if (now.selected !== told.selected) changed.push(describeSelection(now.selected));
  if (now.extra !== told.extra) changed.push(extra ?? 'From the editor: nothing now.');
  if (changed.length === 0 && !person) return { texts: [], told: now, whole: false };
  const delta = changed.length > 0 ? `The page changed since you last saw it:\n\n${changed.join('\n\n')}` : '';
  const page = await describe();
  if (delta.length + (person?.text.length ?? 0) > page.length) return whole(true, page);
  return { texts: delta ? [delta] : [], told: now, whole: false };
}

/** Before a whole page is appended: leaves out the earlier ones if the conversation would hold too many. */
export function forgetEarlierPages(messages: ModelMessage[]): void {
  const pages = messages.flatMap((message, index) =>
    message.role === 'notice' && message.text.startsWith(WHOLE_PAGE) ? [index] : [],
  );
  if (pages.length < MAX_WHOLE_PAGES) return;
  for (const index of pages) {
    messages[index] = {
      role: 'notice',
      text: 'An earlier view of the page, left out: the page shown below replaces it.',
    };
  }
}

// Called as charCodeAt.call(text, i): `text.charCodeAt(i)` is not inlined once a String subclass exists (ioredis
// defines one), and costs about 7 times as much.
const charCodeAt = String.prototype.charCodeAt;

/** A short fingerprint of a text: its length and two 32-bit FNV-1a hashes (one collision in 2^64). */
function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let index = 0; index < text.length; index += 1) {
    const code = charCodeAt.call(text, index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 15);
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}
