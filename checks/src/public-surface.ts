// The public surface of every published package: for each entry point its package.json `exports` names, the names
// that entry exports and whether each is a value, a type, or both (a zod schema and its inferred type share a name).
// Read with the TypeScript checker, not by importing, so the widget's browser entries need no DOM.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The snapshot file, relative to the repository root. */
export const SURFACE_FILE = 'checks/public-surface.txt';
/** The one command that rewrites the snapshot. */
export const UPDATE_COMMAND = 'bash scripts/pnpm.sh --filter @canvas-ai/checks surface';

type Kind = 'value' | 'type' | 'value+type';

interface Entry {
  /** The import specifier, e.g. `@canvas-ai/protocol/server`. */
  readonly specifier: string;
  /** The source file, relative to the repository root. */
  readonly file: string;
}

interface PackageJson {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, string>;
}

/** Every entry point of every package that is published (not `private`), from its package.json `exports`. */
export async function publishedEntries(): Promise<Entry[]> {
  const entries: Entry[] = [];
  const folders = (await readdir(join(REPO_ROOT, 'packages'))).sort();
  for (const folder of folders) {
    const manifest = JSON.parse(
      await readFile(join(REPO_ROOT, 'packages', folder, 'package.json'), 'utf8'),
    ) as PackageJson;
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (!target.endsWith('.ts')) continue; // ./package.json
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      entries.push({ specifier, file: join('packages', folder, target).split('\\').join('/') });
    }
  }
  return entries;
}

/** Whether an alias chain passes through `export type { … }` / `import type { … }`: then only the type is public. */
function typeOnlyAlias(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  let current: ts.Symbol | undefined = symbol;
  for (let step = 0; current && current.flags & ts.SymbolFlags.Alias && step < 50; step++) {
    if (current.declarations?.some((declaration) => ts.isTypeOnlyImportOrExportDeclaration(declaration))) return true;
    current = checker.getImmediateAliasedSymbol(current);
  }
  return false;
}

function kindOf(checker: ts.TypeChecker, symbol: ts.Symbol): Kind {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const isValue = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnlyAlias(checker, symbol);
  const isType = (target.flags & ts.SymbolFlags.Type) !== 0;
  if (isValue && isType) return 'value+type';
  return isValue ? 'value' : 'type';
}

/** The snapshot text: one section per entry, one `kind name` line per exported name, sorted by name. */
export async function describeSurface(): Promise<string> {
  const entries = await publishedEntries();
  const program = ts.createProgram({
    rootNames: entries.map((entry) => join(REPO_ROOT, entry.file)),
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['node'],
      strict: true,
      skipLibCheck: true,
      experimentalDecorators: true,
      useDefineForClassFields: false,
      resolveJsonModule: true,
      noEmit: true,
    },
  });
  const checker = program.getTypeChecker();
  const sections = [
    '# The exported names of every entry point of every published package (value, type, or a value and a type',
    '# under one name). Checked by checks/test/public-surface.test.ts; a change here is a change to the public API.',
    `# Rewrite with: ${UPDATE_COMMAND}`,
  ];
  for (const entry of entries) {
    const source = program.getSourceFile(join(REPO_ROOT, entry.file));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry.file} (${entry.specifier}) is not a module the checker can read`);
    const names = checker
      .getExportsOfModule(moduleSymbol)
      .map((symbol) => ({ name: symbol.getName(), kind: kindOf(checker, symbol) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const values = names.filter((name) => name.kind !== 'type').length;
    sections.push(
      '',
      `## ${entry.specifier} (${entry.file}): ${names.length} names, ${values} values`,
      ...names.map((name) => `${name.kind.padEnd(10)} ${name.name}`),
    );
  }
  return `${sections.join('\n')}\n`;
}
