// a one-way import (e → f) beside the cycle
import { f } from '../f/f.js';
export const e = f;
export const later = () => import('../c/c.js');
