import { malformedRequestBody, type MalformedRequestCase } from '@canvas-ai/protocol/scenario';
import { defineCheck, fail, pass, slug, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { newRequestId, promptHop } from '../requests.js';
import type { SpecRef } from '../spec-refs.js';

/**
 * Level 1, the door: one check per row of fixtures/malformed-requests.yaml (the table every implementation is held
 * to), plus an agent no server offers.
 */
export function validationChecks(table: readonly MalformedRequestCase[]): ConformanceCheck[] {
  const rows = table.map(
    (row): ConformanceCheck => ({
      id: `validation.${slug(row.name)}`,
      family: 'validation.*',
      level: 1,
      title: `"${row.name}" gets ${expectation(row.expect)}.`,
      spec: specOf(row),
      async run(context) {
        const sent = await context.client.postRaw(malformedRequestBody(row), row.content_type ?? 'application/json', {
          headers: row.headers,
        });
        return judge(sent, row.expect);
      },
    }),
  );
  return [...rows, unknownAgent];
}

const unknownAgent = defineCheck({
  id: 'validation.unknown-agent',
  level: 1,
  title: 'A hop naming an agent the server does not offer gets 400 unknown_agent naming `agent`.',
  spec: {
    section: 'errors',
    must: '`unknown_agent` (400): `agent` names neither the main agent nor an agent offered by `GET /api/agents`.',
  },
  async run(context) {
    const request = { ...promptHop(newRequestId('agent'), 1, context.prompt), agent: 'conformance-no-such-agent' };
    return judge(await context.client.postHop(request), { status: 400, code: 'unknown_agent', field: 'agent' });
  },
});

type Expectation = MalformedRequestCase['expect'];

function judge(sent: Exchange, expect: Expectation): ReturnType<typeof pass> {
  const ok =
    sent.status === expect.status &&
    errorCodeOf(sent.body) === expect.code &&
    (expect.field === undefined || errorFieldOf(sent.body) === expect.field);
  return ok
    ? pass(`answered ${describeAnswer(sent)}`)
    : fail(`expected ${expectation(expect)}, got ${describeAnswer(sent)}`);
}

function expectation(expect: Expectation): string {
  return `${expect.status} ${expect.code}${expect.field === undefined ? '' : ` naming "${expect.field}"`}`;
}

/** The section whose rule a row breaks, by the error it expects. */
function specOf(row: MalformedRequestCase): SpecRef {
  const must = `a request that breaks this rule gets ${expectation(row.expect)} (the table of spec/hop-protocol.md §7 and fixtures/malformed-requests.yaml)`;
  if (row.expect.code === 'unsupported_media_type' || row.expect.code === 'invalid_json')
    return { section: 'contentTypes', must };
  if (/__proto__|constructor|prototype/.test(row.expect.field ?? row.name)) return { section: 'tolerance', must };
  return { section: 'request', must };
}
