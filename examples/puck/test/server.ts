import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The reference server CLI as its own process, serving the built example with the example's fixtures. */
export interface Server {
  url: string;
  stop(): Promise<void>;
}

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const FLAGS = [
  '--port',
  '0',
  '--static',
  'dist',
  '--catalog',
  'fixtures/catalog.yaml',
  '--agents',
  'fixtures/agents.yaml',
];

/** Starts `canvas-ai-server` (scripted model, the example's scenarios) on 127.0.0.1, resolving with its URL. */
export function startServer(): Promise<Server> {
  const child: ChildProcess = spawn(
    'node',
    ['--import', 'tsx', '../../packages/reference-server/src/cli.ts', ...FLAGS, '--scenarios', 'fixtures/scenarios'],
    { cwd: exampleDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 30_000);
    const read = (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1]!, stop: () => stop(child) });
    };
    child.stdout!.setEncoding('utf8').on('data', read);
    child.stderr!.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
