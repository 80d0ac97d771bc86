export const f = 1;
