import {
  createApp,
  jsonLineLogger,
  loadConfig,
  MemoryTurnStore,
  ScriptedProvider,
  type CanvasAiApp,
  type LogEntry,
  type TurnStore,
} from '@canvas-ai/reference-server';
import { BENCH_SCENARIOS_DIR } from './bench-turn.js';

/** The reference server's app without a socket, as the CLI builds it, and a browser-like session on it. */
export interface InProcessServer {
  app: CanvasAiApp;
  /** Cookie and CSRF token of one session (from `GET /api/token`). */
  session: Record<string, string>;
  /** A `POST /api/hop` request with the session's headers, ready to hand to `app.fetch`. */
  hopRequest(body: string): Request;
}

/**
 * The reference server in this process, configured as `canvas-ai-server --scenarios bench/fixtures/scenarios`
 * does it (fixtures' agents and catalog, scripted provider, CSRF on), with the log lines built but dropped, so
 * their cost is counted without any I/O.
 */
export async function inProcessServer(
  store: TurnStore = new MemoryTurnStore(),
  onLog: (entry: LogEntry) => void = () => undefined,
): Promise<InProcessServer> {
  const config = await loadConfig({ scenariosDir: BENCH_SCENARIOS_DIR });
  const jsonLine = jsonLineLogger(() => undefined);
  const app = createApp({
    agents: config.agents,
    agentsSource: config.agentsFile,
    catalog: config.catalog,
    provider: new ScriptedProvider(config.scenarios),
    docs: config.docs,
    store,
    // Built as the CLI's logger builds each line (its cost counted), then handed over instead of written.
    log: (entry) => {
      jsonLine(entry);
      onLog(entry);
    },
  });
  const tokenResponse = await app.fetch(new Request('http://127.0.0.1/api/token'));
  const cookie = (tokenResponse.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { token, header } = (await tokenResponse.json()) as { token: string; header: string };
  const session = { cookie, [header]: token };
  return {
    app,
    session,
    hopRequest: (body) =>
      new Request('http://127.0.0.1/api/hop', {
        method: 'POST',
        headers: { ...session, 'content-type': 'application/json' },
        body,
      }),
  };
}
