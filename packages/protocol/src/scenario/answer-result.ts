import { waitAnswerResult } from '../tools/wait-answers.js';
import type { WaitAnswer, Waiting } from '../wire/waits.js';
import type { ScenarioHop } from './scenario.js';

/**
 * The result the model is told once a scenario's waiting hop is answered as the scenario says (spec §20.2, §20.3):
 * what `{{answer}}` in the next reply resolves to (spec §15). Undefined for a hop that does not wait.
 */
export function scenarioAnswerResult(hop: ScenarioHop | undefined): string | undefined {
  if (!hop?.waiting || !hop.answer) return undefined;
  const waiting = { ...hop.waiting, expires_at: '' } as Waiting;
  const answer = { kind: hop.waiting.kind, call_id: hop.waiting.call_id, ...hop.answer } as WaitAnswer;
  return waitAnswerResult(waiting, answer);
}
