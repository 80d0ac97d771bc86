import * as z from 'zod/mini';
import { allDifferent, cachedWithinInput, isSafeKey, withinCodePoints } from './predicates.js';

/** The predicates a wire schema may refine with: the browser's checkers are generated with these names. */
const PREDICATES = { isSafeKey, withinCodePoints, allDifferent, cachedWithinInput } as const;
export type PredicateName = keyof typeof PREDICATES;
type Subject<Name extends PredicateName> = Parameters<(typeof PREDICATES)[Name]>[0];
type ExtraArgs<Name extends PredicateName> = (typeof PREDICATES)[Name] extends (
  value: never,
  ...rest: infer Rest
) => boolean
  ? Rest
  : never;

/** Which predicate, with which extra arguments, a refinement made by {@link refineBy} runs. */
export interface NamedRefinement {
  name: PredicateName;
  args: readonly unknown[];
}

const NAMED = new WeakMap<object, NamedRefinement>();

/**
 * A zod refinement that runs one of ./predicates.ts by name: the generator of the browser's checkers
 * (src/spec/checkers.ts) reads the name back, so the rule is written once and a refinement it cannot name fails it.
 */
export function refineBy<Name extends PredicateName>(
  name: Name,
  args: ExtraArgs<Name>,
  params: { message: string; path?: PropertyKey[] },
): z.core.$ZodCheck<Subject<Name>> {
  const predicate = PREDICATES[name] as (value: unknown, ...rest: readonly unknown[]) => boolean;
  const check = z.refine<Subject<Name>>((value) => predicate(value, ...args), params);
  NAMED.set(check, { name, args });
  return check;
}

/** The predicate behind a refinement made by {@link refineBy}; `undefined` for any other check. */
export function namedRefinement(check: object): NamedRefinement | undefined {
  return NAMED.get(check);
}
