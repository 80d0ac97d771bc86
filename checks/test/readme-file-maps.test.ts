// Every package README keeps a map of its files, one line each, so a newcomer finds their room. This keeps the
// maps from drifting: each source file must be named in its package's README (and each test file, where the README
// maps its tests at all).
import { strict as assert } from 'node:assert';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = [
  'packages/protocol',
  'packages/conformance',
  'packages/widget',
  'packages/reference-server',
  'packages/demo-editor',
  'bench',
  'checks',
];

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Whether `readme` names `file`: by its path from the package (`src/tools/uuid-tree.ts`), from its top folder
 * (`tools/uuid-tree.ts`), or by its bare name when no other file of the package has that name.
 */
function names(readme: string, file: string, packageFiles: readonly string[]): boolean {
  const fromPackage = file;
  const fromTop = file.split('/').slice(1).join('/');
  const name = basename(file);
  const nameIsUnique = packageFiles.filter((other) => basename(other) === name).length === 1;
  const mentioned = (text: string) =>
    new RegExp(`(^|[\\s\`'(/*])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').test(readme);
  return mentioned(fromPackage) || mentioned(fromTop) || (nameIsUnique && mentioned(name));
}

describe('package README file maps', () => {
  for (const pkg of PACKAGES) {
    it(`${pkg}/README.md names every file of src/ (and of test/ when it maps its tests)`, async () => {
      const root = join(REPO_ROOT, pkg);
      const readme = await readFile(join(root, 'README.md'), 'utf8');
      const relativeFiles = async (folder: string) =>
        (await tsFiles(join(root, folder))).map((file) => relative(root, file).split(sep).join('/'));
      const sources = await relativeFiles('src');
      const tests = await relativeFiles('test');
      const mapsTests = /(^|[\s`])test\/[\w./-]+\.ts/m.test(readme);
      const files = [...sources, ...(mapsTests ? tests : [])];

      assert.ok(sources.length > 0, `${pkg} has source files`);
      const missing = files.filter((file) => !names(readme, file, files));
      assert.deepEqual(missing, [], `${pkg}/README.md does not name these files; add one line each`);
    });
  }
});
