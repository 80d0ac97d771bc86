import { d } from '../d/d.js';
export const c = d;
