// `npm start`: builds the demo and starts the reference server serving it, with a local admin token for the demo's
// settings screen (the admin surface is off without one). Says so first, before the build's output.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const token = process.env.CANVAS_AI_ADMIN_TOKEN || randomBytes(24).toString('base64url');
console.log(`Demo admin token for this run (CANVAS_AI_ADMIN_TOKEN): ${token}`);
console.log(
  `Open http://127.0.0.1:8787/#admin-token=${token} (or the address printed below) for the editor with its Settings screen unlocked.`,
);

// `npm start -- --port 0`: the flags after `--` go to the server.
const serverArgs = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));

const build = spawnSync('vite', ['build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const server = spawn('canvas-ai-server', ['--static', 'dist', '--scripted-word-delay', '30', ...serverArgs], {
  stdio: 'inherit',
  env: { ...process.env, CANVAS_AI_ADMIN_TOKEN: token },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
