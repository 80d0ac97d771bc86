import { e } from '../e/e.js';
export const d = e;
