// The attack bench's server, run as a child process: the reference server as its CLI builds it by default (fixtures,
// scripted model, memory store, CSRF on, logs to /dev/null), plus one route of its own, GET /__bench/stall, that
// answers the longest event-loop stall since the previous call and starts a new count. Usage: stall-server.ts.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp, jsonLineLogger, loadConfig, ScriptedProvider, startServer } from '@canvas-ai/reference-server';

const config = await loadConfig({});
const app = createApp({
  agents: config.agents,
  agentsSource: config.agentsFile,
  catalog: config.catalog,
  provider: new ScriptedProvider(config.scenarios),
  docs: config.docs,
  log: jsonLineLogger(() => undefined),
});
// Sampled every 5 ms: the histogram's maximum is the longest the loop went without running a timer, beyond 5 ms.
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const server = await startServer(
  {
    fetch: (request) => {
      if (new URL(request.url).pathname !== '/__bench/stall') return app.fetch(request);
      const stallMs = delay.max / 1e6;
      delay.reset();
      return Promise.resolve(Response.json({ stall_ms: stallMs }));
    },
  },
  { port: 0, host: '127.0.0.1' },
);
console.error(`stall server listening on ${server.url}`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
