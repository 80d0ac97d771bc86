import { defineCheck, fail, pass, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { doorProbe } from '../requests.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

/** `traceparent` values a server must not refuse for: one well-formed, the others not W3C trace context at all. */
const TRACEPARENTS: ReadonlyArray<[what: string, value: string]> = [
  ['well-formed', `00-${TRACE_ID}-${PARENT_ID}-01`],
  ['garbage', 'not-a-traceparent'],
  ['uppercase hex', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
  ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
  ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
  ['too long', `00-${TRACE_ID}-${PARENT_ID}-01-${'x'.repeat(300)}`],
];

/** An answer as the check compares it: status, error code and field. */
function shape(sent: Exchange): string {
  return `${sent.status} ${errorCodeOf(sent.body) ?? ''} ${errorFieldOf(sent.body) ?? ''}`;
}

/** Level 1, trace context (spec §4.7): the headers are the client's to send and never a reason to refuse. */
export const traceContextChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'trace.malformed-ignored',
    level: 1,
    title:
      'A hop with a well-formed or a malformed traceparent (and tracestate) is answered as the same hop without them.',
    spec: {
      section: 'traceContext',
      must: 'A server MUST NOT refuse a request for its `traceparent` or `tracestate`: a value it cannot parse is ignored, and the request is answered as it would be without the header.',
    },
    async run(context) {
      // The door probe names an agent no server offers: every copy is refused for that, and no model is called.
      const without = await context.client.postHop(doorProbe('trace'));
      const problems: string[] = [];
      for (const [what, traceparent] of TRACEPARENTS) {
        const sent = await context.client.postHop(doorProbe('trace'), {
          headers: { traceparent, tracestate: what === 'well-formed' ? 'kit=1' : '=,=,,' },
        });
        if (shape(sent) !== shape(without))
          problems.push(
            `with a traceparent of ${what}: ${describeAnswer(sent)}, without one: ${describeAnswer(without)}`,
          );
      }
      if (problems.length > 0) return fail(problems.join('; '));
      return pass(
        `${TRACEPARENTS.length} traceparent values, each answered as without one (${describeAnswer(without)})`,
      );
    },
  }),
];
