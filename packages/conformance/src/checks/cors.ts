import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf } from '../http-client.js';
import { sendWithHost } from '../raw-http.js';
import { doorProbe, newRequestId } from '../requests.js';
import { passedTheDoor } from './door-answers.js';

/**
 * An origin no deployment lists (`.invalid` is reserved, RFC 2606 names it so): the kit cannot know which origins a
 * server was configured with, but it knows this one is none of them.
 */
const UNLISTED_ORIGIN = 'https://conformance-kit.invalid';

/**
 * Level 1, pages of other sites: a state change they send is refused whatever the CSRF token (spec §4.5), and an
 * origin the server does not list gets no CORS grant (spec §4.6).
 */
export const corsChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'origin.cross-site-refused',
    level: 1,
    title: 'A hop with a valid token but the Origin of another site gets 403 origin_not_allowed.',
    spec: {
      section: 'hostsOrigins',
      must:
        "A POST or DELETE whose Origin is neither the request's own nor one the server allows MUST be refused with " +
        '403 origin_not_allowed, whether or not the CSRF check is on.',
    },
    async run(context) {
      // The probe names an agent no server offers: past the door it is a 400, and no model is called.
      const sent = await context.client.postHop(doorProbe('origin'), { headers: { origin: UNLISTED_ORIGIN } });
      if (sent.status === 403 && errorCodeOf(sent.body) === 'origin_not_allowed')
        return pass(`refused with ${describeAnswer(sent)}`);
      return fail(`expected 403 origin_not_allowed, got ${describeAnswer(sent)}`);
    },
  }),
  defineCheck({
    id: 'origin.refused-first',
    level: 1,
    title:
      'A request of another site gets 403 origin_not_allowed before the rest of the order: on a path that is no endpoint, with a method the path does not have, and without a token or a readable body.',
    spec: {
      section: 'hostsOrigins',
      must: 'The origin check sits right after the Host check, before everything of the validation order of spec §7: a request of a refused origin with any method but GET, HEAD and OPTIONS MUST get 403 origin_not_allowed whatever its path, method, session, token and body.',
    },
    async run(context) {
      const client = context.client;
      const origin = { origin: UNLISTED_ORIGIN };
      const probes: Array<[string, Promise<Awaited<ReturnType<typeof client.send>>>]> = [
        [
          'POST to a path that is no endpoint',
          client.send(`${client.cancelUrl(newRequestId('origin-path'))}/no-such-endpoint`, {
            method: 'POST',
            headers: { ...origin, 'content-type': 'application/json' },
            body: '{}',
          }),
        ],
        ['PUT on the hop endpoint', client.send(client.options.endpoint, { method: 'PUT', headers: origin })],
        [
          'a hop without a CSRF token and with a body that is not JSON',
          client.postRaw('{', 'application/json', { csrf: false, headers: origin }),
        ],
      ];
      const problems: string[] = [];
      for (const [what, sending] of probes) {
        const sent = await sending;
        if (sent.status !== 403 || errorCodeOf(sent.body) !== 'origin_not_allowed')
          problems.push(`${what} answered ${describeAnswer(sent)}, expected 403 origin_not_allowed`);
      }
      return problems.length === 0
        ? pass(`${probes.length} requests of another site, each refused by its origin before anything else`)
        : fail(problems.join('; '));
    },
  }),
  defineCheck({
    id: 'origin.own-origin-any-scheme',
    level: 1,
    title:
      "A hop whose Origin is the endpoint's own host and port under the other scheme (a page behind a TLS-terminating proxy) is not refused by its origin.",
    spec: {
      section: 'hostsOrigins',
      must: "The request's own origin is the one its Host header names, and a server MUST compare it by host name and port only, never by scheme.",
    },
    async run(context) {
      const url = new URL(context.client.options.endpoint);
      const other = url.protocol === 'https:' ? 'http:' : 'https:';
      // The port as the endpoint's Host header carries it: a port left out stays left out.
      const origin = `${other}//${url.host}`;
      const sent = await context.client.postHop(doorProbe('origin-scheme'), { headers: { origin } });
      if (passedTheDoor(sent)) return pass(`Origin ${origin} passed the door (${describeAnswer(sent)})`);
      return fail(
        `Origin ${origin}, the request's own host and port, answered ${describeAnswer(sent)}; expected it to pass the door (400 unknown_agent, the probe's agent)`,
      );
    },
  }),
  defineCheck({
    id: 'origin.own-origin-by-port',
    level: 1,
    title:
      "The own origin is the Host's name and port: Host H with Origin http://H (no port on either) passes the door; Host H:P with Origin http://H, and Host H with Origin http://H:P, are another origin (403 origin_not_allowed).",
    spec: {
      section: 'hostsOrigins',
      must: 'A port left out is the same on both sides: a Host without a port matches an Origin without one; a Host that names a port matches an Origin with that port (the comparison by host name and port).',
    },
    async run(context) {
      const client = context.client;
      if (client.options.fetch)
        return skip('the kit reaches this server through a fetch of its own, with no socket to send another Host');
      const url = new URL(client.options.endpoint);
      if (!url.port) return skip(`the endpoint ${url.origin} names no port, so no Host can leave one out`);
      const name = url.hostname;
      const session = { ...(await client.csrfHeaders()), cookie: client.jar.header() ?? '' };
      const probe = (host: string, origin: string) =>
        sendWithHost(client.options.endpoint, {
          method: 'POST',
          host,
          headers: { ...session, origin, 'content-type': 'application/json' },
          body: JSON.stringify(doorProbe('origin-port')),
          timeoutMs: context.timeoutMs,
        });
      const problems: string[] = [];
      const same = await probe(name, `http://${name}`);
      if (!(same.status === 400 && errorCodeOf(same.body) === 'unknown_agent'))
        problems.push(
          `Host ${name} with Origin http://${name} answered ${same.status} ${errorCodeOf(same.body) ?? ''}, expected it to pass the door (400 unknown_agent, the probe's agent)`,
        );
      for (const [host, origin] of [
        [`${name}:${url.port}`, `http://${name}`],
        [name, `http://${name}:${url.port}`],
      ] as const) {
        const other = await probe(host, origin);
        if (other.status !== 403 || errorCodeOf(other.body) !== 'origin_not_allowed')
          problems.push(
            `Host ${host} with Origin ${origin} answered ${other.status} ${errorCodeOf(other.body) ?? ''}, expected 403 origin_not_allowed (the ports differ)`,
          );
      }
      return problems.length === 0
        ? pass(`Host ${name} matched Origin http://${name}; a port on one side only made another origin, twice`)
        : fail(problems.join('; '));
    },
  }),
  defineCheck({
    id: 'cors.unlisted-origin',
    level: 1,
    title:
      'A preflight, a GET and a refused hop from an origin the server does not list get no Access-Control-Allow-Origin for it.',
    spec: {
      section: 'crossOrigin',
      must:
        'A preflight from an origin that is not listed MUST NOT get Access-Control-Allow-Origin; a response to a ' +
        'request of an origin that is not listed MUST NOT carry Access-Control-Allow-Origin for it; no `*`.',
    },
    async run(context) {
      // Sent past the client's log: these answers are judged here, not as hop or error bodies.
      const send = context.client.options.fetch ?? globalThis.fetch;
      const endpoint = context.client.options.endpoint;
      const signal = AbortSignal.timeout(context.timeoutMs);
      const probes: Array<[string, Promise<Response>]> = [
        [
          `OPTIONS ${endpoint} (preflight)`,
          send(endpoint, {
            method: 'OPTIONS',
            headers: {
              origin: UNLISTED_ORIGIN,
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'content-type,x-csrf-token',
            },
            signal,
          }),
        ],
      ];
      const readable = context.client.options.agentsEndpoint ?? context.client.options.tokenEndpoint;
      if (readable) probes.push([`GET ${readable}`, send(readable, { headers: { origin: UNLISTED_ORIGIN }, signal })]);
      // Errors included (spec §4.6): the hop this origin sends is refused, and the refusal must not be readable.
      probes.push([
        `POST ${endpoint} (refused)`,
        send(endpoint, {
          method: 'POST',
          headers: { origin: UNLISTED_ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify(doorProbe('cors')),
          signal,
        }),
      ]);
      const granted: string[] = [];
      for (const [what, answer] of probes) {
        const response = await answer;
        await response.body?.cancel();
        const grant = response.headers.get('access-control-allow-origin');
        if (grant === UNLISTED_ORIGIN || grant === '*')
          granted.push(`${what} answered Access-Control-Allow-Origin: ${grant}`);
      }
      if (granted.length > 0) return fail(granted.join('; '));
      return pass(`${probes.length} answer(s) to ${UNLISTED_ORIGIN}, none granted`);
    },
  }),
];
