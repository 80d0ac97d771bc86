import type { a } from '../a/a.js';
export const b = 1;
export type B = typeof a;
