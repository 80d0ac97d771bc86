// The person's answers to a turn's waits, given before it starts (canvas-ai-turn --answers; the client kit's
// {answers}, spec/conformance.md §7): one entry per wait, in the order the turn asks (spec §20).
import { z } from 'zod';
import type { HeadlessTurnOptions } from '../headless-turn.js';

/**
 * One scripted answer: a question's picks, text or dismissal; a plan's decision; a screenshot's image, or none; the
 * proposed changes left ticked (indexes into `waiting.approval.changes`; none rejects them all).
 */
const ScriptedAnswer = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('question'),
    choices: z.array(z.int().min(0)).optional(),
    text: z.string().optional(),
    dismissed: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('plan'), decision: z.enum(['approve', 'revise']), feedback: z.string().optional() }),
  z.object({ kind: z.literal('screenshot'), image: z.string().min(1).nullable() }),
  z.object({ kind: z.literal('approval'), approved: z.array(z.int().min(0)) }),
]);

/** The answers of one turn, in the order its waits come. */
export const ScriptedAnswers = z.array(ScriptedAnswer);
export type ScriptedAnswers = z.infer<typeof ScriptedAnswers>;

/** What the scripted person does besides answering: read an image file, and say that a wait has no answer left. */
export interface ScriptedPerson {
  readImage(path: string): Promise<Blob>;
  /** A wait came with no scripted answer left: the turn then waits until it is stopped, as a person who looks away. */
  unanswered(kind: string): void;
}

/**
 * The loop's wait hooks for `answers`: each wait takes the next answer, which must be of its kind (a mismatch fails
 * the turn, a screenshot's is answered unavailable, as any failing hook is, spec §20.3). Giving them declares every
 * kind of wait on hop 1.
 */
export function scriptedWaits(
  answers: ScriptedAnswers,
  person: ScriptedPerson,
): Pick<HeadlessTurnOptions, 'askPerson' | 'decidePlan' | 'getScreenshot' | 'approve'> {
  let next = 0;
  const take = <Kind extends ScriptedAnswers[number]['kind']>(kind: Kind, signal: AbortSignal) => {
    const answer = answers[next];
    if (!answer) {
      person.unanswered(kind);
      return untilStopped(signal);
    }
    next += 1;
    if (answer.kind !== kind)
      throw new Error(`The turn waits for a ${kind}; the next scripted answer (${next}) is for a ${answer.kind}.`);
    return Promise.resolve(answer as Extract<ScriptedAnswers[number], { kind: Kind }>);
  };
  return {
    askPerson: async (_waiting, { signal }) => {
      const { choices, text, dismissed } = await take('question', signal);
      return { choices, text, dismissed };
    },
    decidePlan: async (_waiting, { signal }) => {
      const { decision, feedback } = await take('plan', signal);
      return { decision, feedback };
    },
    approve: async (waiting, { signal }) => {
      const { approved } = await take('approval', signal);
      return { approved: approved.flatMap((index) => waiting.approval.changes[index]?.call_id ?? []) };
    },
    getScreenshot: async (_request, { signal }) => {
      const { image } = await take('screenshot', signal);
      return image === null ? null : person.readImage(image);
    },
  };
}

/**
 * Never settles: the loop gives up waiting when the turn is stopped. A timer keeps the process alive meanwhile, as a
 * person looking at the question does (Node would otherwise end with nothing left to do).
 */
function untilStopped(signal: AbortSignal): Promise<never> {
  return new Promise<never>(() => {
    const alive = setInterval(() => undefined, 60_000);
    signal.addEventListener('abort', () => clearInterval(alive), { once: true });
  });
}
