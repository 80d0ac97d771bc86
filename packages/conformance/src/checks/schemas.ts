import { AgentsResponse } from '@canvas-ai/protocol';
import { ERROR_STATUS, HopErrorBody, isKnownErrorCode } from '@canvas-ai/protocol';
import { CancelResponse, HopResponse, TokenResponse, TurnStatusResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { Exchange, ExchangeKind } from '../http-client.js';
import { verdict } from './invariants.js';

/**
 * Every response the kit received in this run, against the published schemas (the zod schemas spec/schema/ is
 * generated from). They run last, so they judge every exchange of every earlier check.
 */
export const schemaChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'schemas.hop-responses',
    level: 1,
    title: 'Every 200 answer to a hop is a valid HopResponse (hop-response.schema.json).',
    spec: {
      section: 'response',
      must: 'A 200 response to POST /api/hop is a HopResponse; every field it always sends is present with its type.',
    },
    run: async (context) =>
      judgeExchanges(
        context.client.exchanges,
        (exchange) => exchange.kind === 'hop' && exchange.status === 200,
        HopResponse,
      ),
  }),
  defineCheck({
    id: 'schemas.error-bodies',
    level: 1,
    title: 'Every 4xx/5xx answer carries a valid error body whose code has that HTTP status.',
    spec: {
      section: 'errors',
      must: "Every 4xx and 5xx response of the protocol's endpoints carries the error body; each code has its HTTP status.",
    },
    run: async (context) => {
      const errors = context.client.exchanges.filter((exchange) => exchange.kind !== 'other' && exchange.status >= 400);
      const schemaVerdict = judgeExchanges(errors, () => true, HopErrorBody);
      if (schemaVerdict.status !== 'pass') return schemaVerdict;
      const wrongStatus = errors.flatMap((exchange) => {
        const code = (exchange.body as HopErrorBody).error.code;
        // A code newer than this kit is allowed (v1 may add codes); a known code must carry its own status.
        if (!isKnownErrorCode(code)) return [];
        return ERROR_STATUS[code] === exchange.status
          ? []
          : [
              `${exchange.method} ${exchange.url} answered ${exchange.status} with code ${code}, whose status is ${ERROR_STATUS[code]}`,
            ];
      });
      return verdict(wrongStatus, schemaVerdict.why);
    },
  }),
  defineCheck({
    id: 'schemas.cancel-responses',
    level: 1,
    title: 'Every 200 answer to a cancel is a valid CancelResponse (cancel-response.schema.json).',
    spec: {
      section: 'cancelEndpoint',
      must: 'DELETE /api/hop/{request_id} answers { "status": true, "request_id", "cancelled" }.',
    },
    run: async (context) => judgeExchanges(context.client.exchanges, only('cancel'), CancelResponse),
  }),
  defineCheck({
    id: 'schemas.status-responses',
    level: 1,
    title:
      'Every 200 answer to a turn status request is a valid TurnStatusResponse (turn-status-response.schema.json).',
    spec: {
      section: 'statusEndpoint',
      must: 'GET /api/hop/{request_id} answers { "status": true, "protocol", "request_id", "agent", "hop", "state", … }: progress when active, response when finished.',
    },
    run: async (context) => judgeExchanges(context.client.exchanges, only('status'), TurnStatusResponse),
  }),
  defineCheck({
    id: 'schemas.token-response',
    level: 1,
    title: 'The token endpoint answers a valid TokenResponse naming the X-CSRF-Token header.',
    spec: { section: 'token', must: 'GET /api/token answers { "token": "…", "header": "X-CSRF-Token" }.' },
    run: async (context) => {
      if (context.client.options.tokenEndpoint === undefined) return skip('no --token-endpoint');
      await context.client.csrfToken().catch(() => undefined);
      return judgeExchanges(context.client.exchanges, only('token'), TokenResponse);
    },
  }),
  defineCheck({
    id: 'schemas.agents-response',
    level: 1,
    title: "The agents endpoint answers a valid AgentsResponse (main agent and the picker's agents).",
    spec: {
      section: 'agents',
      must: 'GET /api/agents answers main_agent and tools, each an agent summary { id, label, description }.',
    },
    run: async (context) => {
      if (context.client.options.agentsEndpoint === undefined) return skip('no --agents-endpoint');
      await context.client.getAgents();
      return judgeExchanges(context.client.exchanges, only('agents'), AgentsResponse);
    },
  }),
];

/** The part of a zod schema the checks use (zod itself is the protocol's dependency). */
interface ResponseSchema {
  safeParse(
    value: unknown,
  ): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

function only(kind: ExchangeKind): (exchange: Exchange) => boolean {
  return (exchange) => exchange.kind === kind && exchange.status === 200;
}

function judgeExchanges(
  exchanges: readonly Exchange[],
  select: (exchange: Exchange) => boolean,
  schema: ResponseSchema,
): CheckVerdict {
  const chosen = exchanges.filter(select);
  if (chosen.length === 0) return fail('no such response was received in this run');
  const problems = chosen.flatMap((exchange) => {
    if (!exchange.json) return [`${exchange.method} ${exchange.url} (${exchange.status}) did not answer JSON`];
    const parsed = schema.safeParse(exchange.body);
    if (parsed.success) return [];
    const issue = parsed.error.issues[0]!;
    return [
      `${exchange.method} ${exchange.url} (${exchange.status}): ${issue.path.join('.') || 'body'}: ${issue.message}`,
    ];
  });
  return verdict(problems, `${chosen.length} response(s) valid`);
}
