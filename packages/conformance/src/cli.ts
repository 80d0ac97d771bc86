#!/usr/bin/env node
// canvas-ai-conformance: the entry point, and the only place that ends the process (0 pass, 1 a check failed, 2 usage).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Whether this is the built bin (`dist/cli.js`) inside a checkout of the repository, where the workspace's packages
 * export their TypeScript sources (their `publishConfig` points at `dist` only in a packed tarball), which plain
 * Node cannot load: `@canvas-ai/protocol` then resolves to a `.ts` file.
 */
function builtBinInCheckout(): boolean {
  return import.meta.url.endsWith('.js') && import.meta.resolve('@canvas-ai/protocol').endsWith('.ts');
}

if (builtBinInCheckout()) {
  // The same CLI from its sources, through the workspace's tsx (a devDependency of this package), with the same
  // arguments, streams and exit status: `node packages/conformance/dist/cli.js …` works in a checkout too.
  const tsx = fileURLToPath(import.meta.resolve('tsx/cli'));
  const sources = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const run = spawnSync(process.execPath, [tsx, sources, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

const { main } = await import('./cli-main.js');
process.exit(await main(process.argv.slice(2)));
