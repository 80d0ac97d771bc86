import * as z from 'zod/mini';
import { refineBy } from './refinements.js';

/**
 * A string of at most `max` characters, counted as code points (`withinCodePoints`, ./predicates.ts); the JSON Schema
 * says `maxLength`, which counts the same.
 */
export function boundedText(max: number, message = `at most ${max} characters`) {
  return z
    .string()
    .check(refineBy('withinCodePoints', [max], { message }))
    .register(z.globalRegistry, { maxLength: max });
}
