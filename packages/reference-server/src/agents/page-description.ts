import { type HopContext, layoutNodes, type Props } from '@canvas-ai/protocol';
import { type PropsPrints, uuidTreeSteps } from '@canvas-ai/protocol/server';

/** Components, and characters of their props, described between two yields of {@link describePageSteps}. */
const STEP_NODES = 2_048;
const STEP_CHARS = 256 * 1024;

/**
 * The whole page as the model reads it (uuid tree, props by uuid, page values, selection, host extras), from the
 * context of one request. Sent as a message, not in the system prompt, so the system prompt stays the same for the
 * whole turn and a provider's prompt cache can reuse it (README.md, "What the model is told"). In steps: the uuid
 * tree and the props yield every couple of thousand components or 256 KiB of props, so a large page is no single
 * long step (spec §13.2).
 */
export function* describePageSteps(context: HopContext, prints: PropsPrints): Generator<undefined, string, undefined> {
  const tree = yield* uuidTreeSteps(context.current_layout);
  // One line per component, `uuid: {"prop": value}`: still YAML (a JSON object is a YAML flow map) and as readable
  // to a model, at JSON.stringify's speed. The yaml library's block output of every prop took half of each hop's
  // time at 10,000 components and a quarter at 10 (bench/README.md).
  const props: string[] = [];
  let nodes = 0;
  let chars = 0;
  for (const node of layoutNodes(context.current_layout)) {
    const line = `${node.uuid}: ${propsText(node.props, prints)}`;
    props.push(line);
    nodes += 1;
    chars += line.length;
    // A step ends after so many components or so many characters, whichever comes first: large props are long work.
    if (nodes >= STEP_NODES || chars >= STEP_CHARS) {
      nodes = 0;
      chars = 0;
      yield;
    }
  }
  const parts = [`Layout (uuid component_id):\n${tree}`];
  if (props.length > 0) parts.push(`Props by uuid:\n${props.join('\n')}`);
  parts.push(`Page values:\n${Object.keys(context.page).length > 0 ? json(context.page) : '(none set)'}`);
  parts.push(describeSelection(context.selected_component));
  const extra = describeExtra(context.extra);
  if (extra) parts.push(extra);
  return parts.join('\n\n');
}

/** The selection line of the page, also what the model is told when only the selection changed. */
export function describeSelection(selected: string | null | undefined): string {
  return selected
    ? `Selected component: ${selected} (when the user says "this", they mean it)`
    : 'Selected component: none';
}

/** The host's extra data as the page shows it, or undefined when there is none. */
export function describeExtra(extra: HopContext['extra']): string | undefined {
  const hasExtra =
    extra !== null && extra !== undefined && !(typeof extra === 'object' && Object.keys(extra).length === 0);
  return hasExtra ? `From the editor:\n${json(extra)}` : undefined;
}

/** The most JSON values of one component's props the prompt shows; a component with more is summarized. */
export const PROMPT_PROPS_MAX_VALUES = 10_000;

/**
 * One component's props as JSON, or a one-line summary when they hold more than {@link PROMPT_PROPS_MAX_VALUES}
 * values: no model reads a million values of one component, and writing them out held the event loop (the request
 * limits allow that many in one prop).
 */
function propsText(props: Props, prints: PropsPrints): string {
  if (!fewerValuesThan(props, PROMPT_PROPS_MAX_VALUES)) {
    return JSON.stringify({ '(props not shown)': `more than ${PROMPT_PROPS_MAX_VALUES} JSON values` });
  }
  return prints.json(props);
}

/** Whether `value` holds at most `budget` JSON values; stops counting once it is spent, allocates only for nesting. */
function fewerValuesThan(value: unknown, budget: number): boolean {
  const stack: unknown[] = [value];
  let left = budget - 1;
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item) && item.length > left) return false;
    const children = item as Record<string, unknown>;
    for (const key in children) {
      left -= 1;
      if (left < 0) return false;
      const child = children[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return true;
}

/** The longest string of page values and host data the prompt shows whole; a longer one is cut, saying so. */
export const PROMPT_STRING_MAX_CHARS = 20_000;

/**
 * Host data as indented JSON (a YAML document too, as readable to a model), long strings cut. Not the yaml
 * library's output: the request's budget allows 50,000 values in `extra`, which it took a quarter of a second to
 * write; nor whole megabytes of one string, which no model reads and which held the event loop to copy.
 */
function json(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) =>
      typeof item === 'string' && item.length > PROMPT_STRING_MAX_CHARS
        ? `${item.slice(0, PROMPT_STRING_MAX_CHARS)}… (${item.length - PROMPT_STRING_MAX_CHARS} more characters not shown)`
        : item,
    2,
  );
}
