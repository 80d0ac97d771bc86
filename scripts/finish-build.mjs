#!/usr/bin/env node
// The last step of a package's `build`, run in the package's folder: what a packed tarball needs besides the
// compiled code. `--fixtures` copies the repository's fixtures/ into dist/fixtures (the defaults an installed
// package reads); `--docs` copies README.md and spec/hop-protocol.md into dist/docs (what an include_docs agent
// reads); `--bin FILE` makes FILE run with plain node (the source's shebang may name tsx) and executable.
import { chmod, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);

if (args.includes('--fixtures')) {
  await rm('dist/fixtures', { recursive: true, force: true });
  // The fixtures' own generator scripts stay in the repository.
  await cp(join(root, 'fixtures'), 'dist/fixtures', { recursive: true, filter: (source) => !source.endsWith('.mjs') });
}
if (args.includes('--docs')) {
  await rm('dist/docs', { recursive: true, force: true });
  await mkdir('dist/docs/spec', { recursive: true });
  await cp(join(root, 'README.md'), 'dist/docs/README.md');
  await cp(join(root, 'spec/hop-protocol.md'), 'dist/docs/spec/hop-protocol.md');
}
const bin = args.indexOf('--bin');
if (bin >= 0) {
  const file = args[bin + 1];
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(/^#!.*\n/, '#!/usr/bin/env node\n'));
  await chmod(file, 0o755);
}
