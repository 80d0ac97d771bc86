// The folder graph of a package's source: which top-level folder of `src/` imports which (type-only imports
// included: they couple the folders as much for a reader). A cycle means neither folder can be read first.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Folder → the folders its files import (itself left out); a file directly in `src/` counts as a folder. */
export type FolderGraph = Map<string, Set<string>>;

/** Relative module specifiers of `import … from`, `export … from`, `import(…)` and bare `import '…'`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The folder graph of the `.ts` files under `srcDir`. */
export async function folderGraph(srcDir: string): Promise<FolderGraph> {
  const graph: FolderGraph = new Map();
  for (const file of await typeScriptFiles(srcDir)) {
    const from = folderOf(srcDir, file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const match of (await readFile(file, 'utf8')).matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), match[1]!);
      if (!target.startsWith(srcDir + sep)) continue;
      const to = folderOf(srcDir, target);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The graph's cycles: each strongly connected set of two or more folders, sorted (Tarjan's algorithm). */
export function folderCycles(graph: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The top-level folder of `path` under `srcDir`; a file directly in it is a node of its own (`steps.ts`). */
function folderOf(srcDir: string, path: string): string {
  const parts = relative(srcDir, path).split(sep);
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.js$/, '.ts');
}

async function typeScriptFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await typeScriptFiles(path)));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}
