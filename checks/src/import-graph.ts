// One walker for the checks that are about which module imports which: the TypeScript scanner lists a file's imports
// (static, `import type`, `export … from`, dynamic `import()`), so a comment that mentions an import is never one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** One import of a source file: the importing file (relative to `root`) and the specifier as written. */
export interface ImportEdge {
  readonly from: string;
  readonly specifier: string;
  /** The imported file relative to `root`, for a relative specifier that names a TypeScript source. */
  readonly to?: string;
}

const posix = (path: string) => path.split(sep).join('/');

/** The imports one file makes, relative ones resolved (`./x.js` is the source `./x.ts`). */
function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith('.')) return { from: file, specifier };
    const target = join(dirname(join(root, file)), specifier.replace(/\.js$/, '.ts'));
    return existsSync(target) && target.endsWith('.ts')
      ? { from: file, specifier, to: posix(relative(root, target)) }
      : { from: file, specifier };
  });
}

/** Every source file reachable from `entry` along relative imports, and every import those files make. */
export function importGraph(root: string, entry: string): { files: string[]; imports: ImportEdge[] } {
  const seen = new Set<string>();
  const imports: ImportEdge[] = [];
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of importsOf(root, file)) {
      imports.push(edge);
      if (edge.to !== undefined) pending.push(edge.to);
    }
  }
  return { files: [...seen].sort(), imports };
}

/** Every `.ts` file under `dir` (relative to `root`). */
function sourcesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => posix(relative(root, join(entry.parentPath, entry.name))))
    .sort();
}

/**
 * The folder cycles among the sources under `dir`: each strongly connected group of its top-level folders (a file
 * directly in `dir` is a node of its own: the entry points import every folder, and a neutral module such as the
 * protocol's `steps.ts` is imported by several), as its sorted names joined by ` ↔ `. Type-only imports count: a
 * reader of one folder has to read the other either way.
 */
export function folderCycles(root: string, dir: string): string[] {
  const folderOf = (file: string) => {
    const parts = posix(relative(dir, file)).split('/');
    return parts[0]!;
  };
  const edges = new Map<string, Set<string>>();
  for (const file of sourcesUnder(root, dir)) {
    const from = folderOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const edge of importsOf(root, file)) {
      if (edge.to === undefined || !edge.to.startsWith(`${posix(dir)}/`)) continue;
      const to = folderOf(edge.to);
      if (to !== from) edges.get(from)!.add(to);
    }
  }
  return stronglyConnected(edges)
    .filter((group) => group.length > 1)
    .map((group) => group.sort().join(' ↔ '))
    .sort();
}

/** Tarjan's strongly connected components of a small graph (linear in its nodes and edges). */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    groups.push(group);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}
