// The cost group's server, run as a child process: the reference server as its CLI builds it by default (fixtures,
// memory store, CSRF on, logs to /dev/null) behind a fake model that answers each turn from the shape its user message
// names (cost-shapes.ts), plus one route of its own, GET /__bench/cpu, that answers this process's CPU time so far
// (process.cpuUsage: user + system, microseconds). Usage: cost-server.ts.
import {
  createApp,
  jsonLineLogger,
  loadConfig,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  startServer,
} from '@canvas-ai/reference-server';
import { parseCostMessage } from './cost-shapes.js';

/** Decision 1 is the shape's reply; every later decision answers, ending the turn. */
class CostModel implements ModelProvider {
  readonly name = 'cost-shapes';

  async decide(request: ModelRequest): Promise<ModelReply> {
    const named = parseCostMessage(request.turn.userMessage);
    if (!named) throw new Error(`the cost model does not know the message "${request.turn.userMessage.slice(0, 80)}"`);
    if (request.turn.decision > 1) return { text: 'Done.', toolCalls: [] };
    return named.shape.reply(named.size);
  }
}

const config = await loadConfig({});
const app = createApp({
  agents: config.agents,
  agentsSource: config.agentsFile,
  catalog: config.catalog,
  provider: new CostModel(),
  docs: config.docs,
  log: jsonLineLogger(() => undefined),
});
const server = await startServer(
  {
    fetch: (request) => {
      if (new URL(request.url).pathname !== '/__bench/cpu') return app.fetch(request);
      const { user, system } = process.cpuUsage();
      return Promise.resolve(Response.json({ cpu_us: user + system }));
    },
  },
  { port: 0, host: '127.0.0.1' },
);
console.error(`cost server listening on ${server.url}`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
