import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The packages a team installs from the registry, in dependency order. */
export const PUBLISHED = ['protocol', 'conformance', 'reference-server', 'widget'] as const;

/** What a finished command printed. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end. The Node running the tests goes first on PATH, so `npm` and `npx` run under it, and npm
 * keeps its cache in `cacheDir` (nothing is cached outside the test's folder).
 */
export function run(file: string, args: readonly string[], cwd: string, cacheDir?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: commandEnv(cacheDir), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment of a command: the tests' Node first on PATH, npm's cache and its notices kept to the test. */
export function commandEnv(cacheDir?: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...(cacheDir === undefined ? {} : { npm_config_cache: cacheDir }),
  };
}

/** Fails with the command's output when it did not exit 0. */
export function succeeded(what: string, result: CommandResult): CommandResult {
  if (result.code !== 0)
    throw new Error(`${what} exited ${result.code}:\n${result.stdout}\n${result.stderr}`.slice(-6_000));
  return result;
}

/**
 * Builds every published package in the workspace and packs it as the registry would get it, with the repository's
 * one pack command (`scripts/pack-all.sh`, `npm run pack:all`). Resolves the tarballs' paths, as it printed them.
 */
export async function buildAndPack(into: string): Promise<string[]> {
  const packed = succeeded(
    'scripts/pack-all.sh',
    await run('bash', [join(repoRoot, 'scripts/pack-all.sh'), into], repoRoot),
  );
  return packed.stdout.split('\n').filter(Boolean);
}

/** A new project outside the workspace with the tarballs installed by npm, plus what a team adds itself. */
export async function installProject(dir: string, tarballs: readonly string[], cacheDir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'a-team', private: true, type: 'module' }, null, 2)}\n`,
  );
  // msw for the reference server's /mock, @types/node for a nodenext project: what a team using them installs.
  succeeded(
    'npm install',
    await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs, 'msw@^3', '@types/node@^24'], dir, cacheDir),
  );
}

/** The workspace's TypeScript compiler (the one the repository builds with). */
export const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
