import { http, type HttpHandler } from 'msw';
import type { AgentsConfig } from '../config/agents-config.js';
import type { Catalog } from '../config/catalog.js';
import { joinNarration } from '../narration/narration.js';
import { matchScenario } from '../scenario/match-scenario.js';
import type { Scenario } from '../scenario/scenario.js';
import { readHopRequest } from '../door/read-hop-request.js';
import { builtinTools } from '../tools/builtin-tools.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { AgentsResponse } from '../wire/agents.js';
import { HopError, isHopError } from '../wire/errors.js';
import type { Attachment, HopRequest } from '../wire/hop-request.js';
import type { CancelResponse, HealthResponse, TokenResponse } from '../wire/hop-response.js';
import { PROTOCOL_VERSION, RequestId } from '../wire/ids.js';
import { LIMITS } from '../wire/limits.js';
import { runScriptedHop } from './scripted-hop.js';
import { TurnStore, type ScriptedTurn } from './turns.js';

/** Options of {@link createHandlers}: the fixtures as data (no file system, so it runs in a browser too). */
export interface MockOptions {
  /** The origin and path prefix served, e.g. `http://localhost:5173`; default: any origin. */
  baseUrl?: string;
  scenarios: readonly Scenario[];
  catalog: Catalog;
  agents: AgentsConfig;
  /** The tools agents may use, by name; default: the built-in tools. */
  tools?: Record<string, ToolDefinition<any>>;
  /** Milliseconds each hop takes (with the turn locked), so a concurrent hop of one turn is observable. */
  latencyMs?: number;
  /** The largest hop body in bytes, counted as it streams in (413 past it). Default {@link LIMITS.maxBodyBytes}. */
  maxBodyBytes?: number;
  /** Demand the `X-CSRF-Token` header that `GET /api/token` hands out on hops and cancels (403 csrf_invalid). */
  requireCsrf?: boolean;
  /** Called with every hop request that passes validation, before it is served. */
  onHopRequest?: (request: HopRequest, details: { attachments: Attachment[] }) => void;
}

/**
 * msw 2 handlers of a fake Canvas AI server that replays scenario fixtures with the real hop semantics (§2, §3):
 * POST /api/hop, DELETE /api/hop/:request_id, GET /api/agents, GET /api/token, GET /healthz; another method on one
 * of these paths gets 405. Bodies go through the reference server's own door (`readHopRequest`: 415, 413 counted as
 * the body streams, 400 naming the field). Handlers are values:
 * pass them to `setupServer` or `setupWorker`. Each call has its own turn store.
 */
export function createHandlers(options: MockOptions): HttpHandler[] {
  const base = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const turns = new TurnStore();
  const csrfToken = crypto.randomUUID();
  const setup = {
    catalog: options.catalog,
    agents: options.agents,
    scenarios: options.scenarios,
    tools: options.tools ?? builtinTools,
    newUuid: () => crypto.randomUUID(),
  };

  const checkCsrf = (request: Request): void => {
    if (options.requireCsrf && request.headers.get('x-csrf-token') !== csrfToken) {
      throw new HopError(
        'csrf_invalid',
        'Missing or wrong X-CSRF-Token header; fetch one from GET /api/token and send it with every hop.',
      );
    }
  };
  // Every error becomes a protocol error body; anything unexpected is a 500, as on a real server.
  const guard =
    (serve: (request: Request, params: Record<string, string>) => Promise<Response>) =>
    async ({
      request,
      params,
    }: {
      request: Request;
      params: Record<string, string | readonly string[] | undefined>;
    }) => {
      try {
        return await serve(request, params as Record<string, string>);
      } catch (error) {
        if (isHopError(error)) return error.toResponse();
        return new HopError('internal_error', `The mock failed: ${(error as Error).message}`).toResponse();
      }
    };

  const serveHop = async (request: Request): Promise<Response> => {
    checkCsrf(request);
    const received = await readHopRequest(request, options.maxBodyBytes ?? LIMITS.maxBodyBytes);
    const hop = received.request;
    options.onHopRequest?.(hop, { attachments: received.attachments });

    const agents = options.agents;
    const agentId = hop.agent ?? agents.main_agent;
    if (agentId !== agents.main_agent && !agents.tools.includes(agentId)) {
      const offered = [agents.main_agent, ...agents.tools].join(', ');
      throw new HopError('unknown_agent', `There is no agent "${agentId}" to pick (offered: ${offered}).`, {
        requestId: hop.request_id,
        field: 'agent',
      });
    }
    const claim = turns.claim(hop, agentId, () => startTurn(hop, agentId, received.attachments, options));
    if (claim.kind === 'replay') return Response.json(claim.response);

    const turn = claim.turn;
    try {
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      // Cancelled while it waited: its parked calls must not run (§8.5); cancelled while it ran: its result is dropped.
      const response = turns.holds(turn) ? await runScriptedHop(turn, hop, setup) : undefined;
      if (!response || !turns.complete(turn, response)) {
        turns.drop(turn);
        return new HopError(
          'turn_not_found',
          `Turn "${turn.requestId}" was cancelled while hop ${hop.hop} ran; its result was dropped.`,
          { requestId: turn.requestId },
        ).toResponse();
      }
      return Response.json(response);
    } catch (error) {
      // A hop that fails while executing ends its turn (§7).
      turns.drop(turn);
      const failure = isHopError(error)
        ? error
        : new HopError('internal_error', `The hop failed: ${(error as Error).message}`);
      return failure.withProgress(joinNarration(turn.texts), turn.requestId).toResponse();
    }
  };

  return [
    http.post(`${base}/api/hop`, guard(serveHop)),
    http.delete(
      `${base}/api/hop/:request_id`,
      guard(async (request, params) => {
        checkCsrf(request);
        const id = RequestId.safeParse(params.request_id);
        if (!id.success)
          throw new HopError('invalid_request', `request_id: ${id.error.issues[0]!.message}`, { field: 'request_id' });
        const body: CancelResponse = { status: true, request_id: id.data, cancelled: turns.cancel(id.data) };
        return Response.json(body);
      }),
    ),
    http.get(
      `${base}/api/agents`,
      guard(async () => Response.json(agentsResponse(options.agents))),
    ),
    http.get(
      `${base}/api/token`,
      guard(async () => Response.json({ token: csrfToken, header: 'X-CSRF-Token' } satisfies TokenResponse)),
    ),
    http.get(
      `${base}/healthz`,
      guard(async () => Response.json({ status: 'ok', protocol: PROTOCOL_VERSION } satisfies HealthResponse)),
    ),
    // Listed after the routes above, so they see only the other methods: 405, as on the reference server (§3).
    ...(
      [
        ['/api/hop', 'POST'],
        ['/api/hop/:request_id', 'DELETE'],
        ['/api/agents', 'GET'],
        ['/api/token', 'GET'],
        ['/healthz', 'GET'],
      ] as const
    ).map(([path, allowed]) =>
      http.all(`${base}${path}`, ({ request }) =>
        new HopError('method_not_allowed', `${request.method} is not served at ${path}; use ${allowed}.`).toResponse({
          Allow: allowed,
        }),
      ),
    ),
  ];
}

/** A new turn on hop 1: the scenario is picked by agent and user message (`matchScenario`). */
function startTurn(
  request: HopRequest,
  agentId: string,
  attachments: Attachment[],
  options: MockOptions,
): ScriptedTurn {
  const userMessage = request.messages?.at(-1)?.text ?? '';
  return {
    requestId: request.request_id,
    agentId,
    scenario: matchScenario(options.scenarios, { agent: agentId, userMessage, mainAgent: options.agents.main_agent }),
    attachments,
    decisions: 0,
    texts: [],
    parked: [],
    outputs: [],
    lastHop: 0,
    lastResponse: undefined,
    running: false,
    finished: false,
  };
}

/** `GET /api/agents`: the main agent and the agents of the picker. */
function agentsResponse(agents: AgentsConfig): AgentsResponse {
  const summary = (id: string) => ({
    id,
    label: agents.agents[id]!.label,
    description: agents.agents[id]!.description,
  });
  return { main_agent: summary(agents.main_agent), tools: agents.tools.map(summary) };
}
