// `pnpm spec` (the conformance part): writes the MUST → check matrix into spec/conformance.md §6.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fillMustMatrix, mustMatrixMarkdown } from '../src/must-matrix.js';

const specDir = fileURLToPath(new URL('../../../spec/', import.meta.url));
const protocol = readFileSync(`${specDir}hop-protocol.md`, 'utf8');
const path = `${specDir}conformance.md`;
writeFileSync(path, fillMustMatrix(readFileSync(path, 'utf8'), mustMatrixMarkdown(protocol)));
console.log(`wrote the MUST → check matrix of ${path}`);
