import type { StoredToolCall } from './providers/model-provider.js';

/** The longest call id (the protocol's `CallId`). */
const MAX_CALL_ID = 200;

/**
 * The calls of one model decision with an id each of their own (spec §12): a model may repeat one (`c1` twice), and
 * then two outputs, two apply results and two tool results would share it, and a rejection would name the wrong
 * call. A repeated id gets a suffix (`c1~2`), chosen so it repeats no other id of the decision; an empty one is
 * named by its place. Unique ids are kept as they are.
 */
export function uniqueCallIds(calls: readonly StoredToolCall[]): StoredToolCall[] {
  const taken = new Set(calls.map((call) => call.id));
  const seen = new Set<string>();
  return calls.map((call, index) => {
    if (call.id !== '' && !seen.has(call.id)) {
      seen.add(call.id);
      return call;
    }
    const base = (call.id || `call_${index + 1}`).slice(0, MAX_CALL_ID - 8);
    let id = base;
    for (let n = 2; taken.has(id) || seen.has(id); n += 1) id = `${base}~${n}`;
    seen.add(id);
    taken.add(id);
    return { ...call, id };
  });
}
