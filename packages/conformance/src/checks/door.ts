import { LIMITS } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, type CheckVerdict, type ConformanceCheck } from '../check.js';
import { describeAnswer, type Exchange } from '../http-client.js';
import { doorProbe, newRequestId } from '../requests.js';
import { describeProbe, expected, isError, passedTheDoor } from './door-answers.js';

/**
 * Level 1, the door beyond the malformed-request table: methods and paths (spec §3), content types and JSON
 * (spec §4.1), the body limit (spec §13), and the tolerance rule (spec §7.1). Every probe names an agent no server
 * offers, so a request that passes the door is refused for that and no model is called.
 */
export const doorChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'door.method-not-allowed',
    level: 1,
    title:
      'Another method on the hop or the cancel path gets 405 method_not_allowed with an Allow header naming the one it has.',
    spec: {
      section: 'endpoints',
      must: 'A known path with another method gets 405 `method_not_allowed`; a 405 MUST carry an `Allow` header naming the method the path has.',
    },
    async run(context) {
      const { client } = context;
      const probes: Array<{ method: string; url: string; allow: string }> = [
        { method: 'GET', url: client.options.endpoint, allow: 'POST' },
        { method: 'PUT', url: client.options.endpoint, allow: 'POST' },
        { method: 'POST', url: client.cancelUrl(newRequestId('method')), allow: 'DELETE' },
      ];
      const problems: string[] = [];
      for (const probe of probes) {
        const sent = await client.send(probe.url, { method: probe.method, headers: await client.csrfHeaders() });
        const allow = (sent.headers.get('allow') ?? '').split(',').map((method) => method.trim().toUpperCase());
        if (!isError(sent, 405, 'method_not_allowed'))
          problems.push(
            `${probe.method} ${probe.url} answered ${describeAnswer(sent)}, expected 405 method_not_allowed`,
          );
        else if (!allow.includes(probe.allow))
          problems.push(
            `${probe.method} ${probe.url}: Allow is ${JSON.stringify(sent.headers.get('allow'))}, expected ${probe.allow}`,
          );
      }
      return problems.length === 0
        ? pass('GET and PUT on the hop path, POST on the cancel path: 405 with the right Allow')
        : fail(problems.join('; '));
    },
  }),
  defineCheck({
    id: 'door.head',
    level: 1,
    title:
      'HEAD on the agents endpoint and on the status path answers as GET does, without a body; HEAD on the hop path gets 405.',
    spec: {
      section: 'endpoints',
      must: '`HEAD` on a `GET` endpoint MUST be answered as the `GET` would be, without a body; `HEAD` on `/api/hop` is another method (405).',
    },
    async run(context) {
      const { client } = context;
      const onHop = await client.send(client.options.endpoint, { method: 'HEAD' });
      if (onHop.status !== 405) return fail(`HEAD ${client.options.endpoint} answered ${onHop.status}, expected 405`);
      // Every GET endpoint, the one that has DELETE too included: a router may answer HEAD only where GET is alone.
      const gets = [client.cancelUrl(newRequestId('head')), client.options.agentsEndpoint].filter(
        (url) => url !== undefined,
      );
      const problems: string[] = [];
      for (const url of gets) {
        const get = await client.send(url, { method: 'GET' });
        const head = await client.send(url, { method: 'HEAD' });
        if (head.status !== get.status) problems.push(`HEAD ${url} answered ${head.status}, GET ${get.status}`);
        else if (head.body !== '') problems.push(`HEAD ${url} answered with a body`);
      }
      if (problems.length > 0) return fail(problems.join('; '));
      return pass(`HEAD on ${gets.length} GET endpoint(s) answered as GET without a body, HEAD on the hop path 405`);
    },
  }),
  defineCheck({
    id: 'door.not-found',
    level: 1,
    title: 'A path under the hop endpoint that is no endpoint gets 404 not_found with the error body.',
    spec: { section: 'endpoints', must: 'Any other path answers 404 `not_found`, with the error body (spec §7).' },
    async run(context) {
      const url = `${context.client.cancelUrl(newRequestId('path'))}/no-such-endpoint`;
      const sent = await context.client.send(url, { method: 'GET' });
      return isError(sent, 404, 'not_found')
        ? pass(`GET ${url} answered ${describeAnswer(sent)}`)
        : fail(`GET ${url} answered ${describeAnswer(sent)}, expected 404 not_found`);
    },
  }),
  defineCheck({
    id: 'door.body-too-large',
    level: 1,
    title: `A body one byte over ${LIMITS.maxBodyBytes.toLocaleString('en-US')} bytes gets 413 payload_too_large.`,
    spec: {
      section: 'contentTypes',
      must: 'A body over the size limit (spec §13) gets 413 `payload_too_large` before it is parsed.',
    },
    async run(context) {
      const head = JSON.stringify(doorProbe('too-large', { extra: '' })).slice(0, -3);
      const padding = LIMITS.maxBodyBytes + 1 - head.length - 3;
      const body = `${head}"${'x'.repeat(padding)}"}}`;
      let sent: Exchange;
      try {
        sent = await context.client.postRaw(body, 'application/json');
      } catch (error) {
        // A server may close the connection once it has answered 413, before the whole body is sent.
        return fail(
          `the request failed before an answer arrived (${(error as Error).message}); expected 413 payload_too_large`,
        );
      }
      return isError(sent, 413, 'payload_too_large')
        ? pass(`${body.length.toLocaleString('en-US')} bytes answered ${describeAnswer(sent)}`)
        : fail(
            `${body.length.toLocaleString('en-US')} bytes answered ${describeAnswer(sent)}, expected 413 payload_too_large`,
          );
    },
  }),
  defineCheck({
    id: 'validation.unknown-fields-ignored',
    level: 1,
    title: 'Fields the server does not know, at the top, in context, in a message and in the layout, are ignored.',
    spec: {
      section: 'tolerance',
      must: 'Every receiver MUST ignore fields it does not know, at any depth (a newer peer may send more).',
    },
    async run(context) {
      const probe = doorProbe('tolerance', {
        conformance_future_field: { nested: [1, 2, 3] },
        messages: [{ role: 'user', text: 'Hello', conformance_tone: 'friendly' }],
        context: {
          current_layout: {
            regions: { content: { components: [], conformance_region_note: 'x' } },
            conformance_grid: 12,
          },
          conformance_viewport: { width: 1280 },
        },
      });
      const sent = await context.client.postHop(probe);
      return passedTheDoor(sent)
        ? pass('unknown fields at four depths were ignored')
        : fail(`a request with unknown fields ${describeProbe(sent)}; expected them ignored`);
    },
  }),
  defineCheck({
    id: 'validation.integer-written-with-fraction',
    level: 1,
    title: '"hop": 1.0 is the integer 1 (JSON has one number type).',
    spec: {
      section: 'request',
      must: 'JSON has one number type: `"hop": 1.0` is the integer 1 and a server MUST accept it.',
    },
    async run(context) {
      const text = JSON.stringify(doorProbe('one-point-zero')).replace('"hop":1,', '"hop":1.0,');
      const sent = await context.client.postRaw(text, 'application/json');
      return passedTheDoor(sent)
        ? pass('"hop": 1.0 was read as hop 1')
        : fail(`"hop": 1.0 ${describeProbe(sent)}; expected it read as hop 1`);
    },
  }),
];

/** A probe at a limit and one over it: the first must pass (or be refused as a stricter server may), the second not. */
export interface LimitProbes {
  atLimit: Record<string, unknown> | string;
  over: Record<string, unknown> | string;
  /** The field the over-limit refusal names, when the server's limit is the protocol's. */
  field: string;
  what: string;
}

/** Sends a probe (an object as JSON, a string verbatim). */
async function sendProbe(
  context: Parameters<ConformanceCheck['run']>[0],
  probe: Record<string, unknown> | string,
): Promise<Exchange> {
  return typeof probe === 'string' ? context.client.postRaw(probe, 'application/json') : context.client.postHop(probe);
}

/**
 * Judges a limit (spec §13): over it a server MUST refuse with 400 `invalid_request`. At it, a server with the
 * protocol's limit passes the door, and then the refusal over it must name `field`; a server MAY be stricter, and
 * then refuses both, which passes (the kit cannot tell a stricter limit from another way of counting there).
 */
export async function judgeLimit(
  context: Parameters<ConformanceCheck['run']>[0],
  probes: LimitProbes,
): Promise<CheckVerdict> {
  const at = await sendProbe(context, probes.atLimit);
  const over = await sendProbe(context, probes.over);
  if (!isError(over, 400, 'invalid_request'))
    return fail(
      `${probes.what} one over the limit ${describeProbe(over)}, expected ${expected(400, 'invalid_request', probes.field)}`,
    );
  if (passedTheDoor(at)) {
    if (isError(over, 400, 'invalid_request', probes.field))
      return pass(`${probes.what} at the limit passed; one over got ${describeAnswer(over)}`);
    return fail(
      `${probes.what} one over the limit answered ${describeAnswer(over)}, expected the field ${probes.field}`,
    );
  }
  if (isError(at, 400, 'invalid_request'))
    return pass(`${probes.what} at the limit was refused too: the server is stricter than spec §13, which it may be`);
  return fail(`${probes.what} at the limit ${describeProbe(at)}; expected it to pass the door`);
}
