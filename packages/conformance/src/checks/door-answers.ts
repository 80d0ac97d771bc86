import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';

/** Whether a {@link doorProbe} passed every check before the agent's: 400 `unknown_agent` naming `agent`. */
export function passedTheDoor(sent: Exchange): boolean {
  return sent.status === 400 && errorCodeOf(sent.body) === 'unknown_agent' && errorFieldOf(sent.body) === 'agent';
}

/** Whether the answer is this error, with this field when one is given. */
export function isError(sent: Exchange, status: number, code: string, field?: string): boolean {
  return (
    sent.status === status &&
    errorCodeOf(sent.body) === code &&
    (field === undefined || errorFieldOf(sent.body) === field)
  );
}

/** `400 invalid_request (field x)`, for whys. */
export function expected(status: number, code: string, field?: string): string {
  return `${status} ${code}${field === undefined ? '' : ` (field ${field})`}`;
}

/** What a door probe got, for whys: "passed the door" or the answer. */
export function describeProbe(sent: Exchange): string {
  return passedTheDoor(sent) ? "passed the door (400 unknown_agent for the kit's agent)" : describeAnswer(sent);
}
