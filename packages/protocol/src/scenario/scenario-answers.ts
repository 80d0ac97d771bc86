import { WaitAnswer } from '../wire/waits.js';
import type { ScenarioAttachment, ScenarioHop } from './scenario.js';

/** What a scenario's waiting hop waits for: its kind and call. */
type ExpectedWait = Pick<NonNullable<ScenarioHop['waiting']>, 'kind' | 'call_id'>;

/**
 * The `answer` a scenario sends after a waiting hop (spec §15, §20.1): its fields for the wait's kind, with `kind` and
 * `call_id` from the wait and the defaults filled in; a screenshot's image is not in it ({@link answerImage}).
 */
export function scenarioAnswer(waiting: ExpectedWait, answer: NonNullable<ScenarioHop['answer']>): WaitAnswer {
  const { image: _sentApart, unavailable, decision, feedback, approved, ...question } = answer;
  const asked = { kind: waiting.kind, call_id: waiting.call_id };
  if (waiting.kind === 'screenshot') return WaitAnswer.parse({ ...asked, unavailable: unavailable ?? false });
  if (waiting.kind === 'plan') return WaitAnswer.parse({ ...asked, decision, feedback });
  if (waiting.kind === 'approval') return WaitAnswer.parse({ ...asked, approved: approved ?? [] });
  return WaitAnswer.parse({ ...asked, ...question });
}

/** The fixture file a scenario's screenshot answer sends as the hop's one attachment (spec §20.3), if any. */
export function answerImage(answer: ScenarioHop['answer']): ScenarioAttachment | undefined {
  return answer?.unavailable ? undefined : answer?.image;
}
