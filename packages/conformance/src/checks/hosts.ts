import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { errorCodeOf } from '../http-client.js';
import { sendWithHost } from '../raw-http.js';
import { doorProbe } from '../requests.js';

/** A host name no server is meant to serve (`.invalid` is reserved, RFC 2606). */
const OTHER_HOST = 'conformance-kit.invalid';

/**
 * Level 1, the `Host` header (spec §4.5): a request naming a host the server does not serve is refused with 421
 * before anything else. Sent over a socket of the kit's own, since fetch names the URL's host.
 */
export const hostChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'hosts.other-host-refused',
    level: 1,
    title:
      'Requests naming a host the server does not serve (Host: conformance-kit.invalid) get 421 host_not_allowed before anything else: no session minted, the host not echoed.',
    spec: {
      section: 'hostsOrigins',
      must:
        'A server MUST answer only the host names it is meant to serve (by default, bound to loopback, the loopback ' +
        'names) and refuse any other with 421 host_not_allowed, before anything else (no session minted, no token); ' +
        'the error MUST NOT echo the host.',
    },
    async run(context) {
      const { options } = context.client;
      if (options.fetch)
        return skip('the kit reaches this server through a fetch of its own, with no socket to name another host');
      const endpoint = new URL(options.endpoint);
      const host = `${OTHER_HOST}${endpoint.port ? `:${endpoint.port}` : ''}`;
      const probes: Array<[string, string, { method: string; headers?: Record<string, string>; body?: string }]> = [];
      if (options.tokenEndpoint)
        probes.push([`GET ${options.tokenEndpoint}`, options.tokenEndpoint, { method: 'GET' }]);
      // Another site's page, no token, a body that is not JSON: every later check of the order would refuse it too,
      // so only a Host check that comes first answers 421.
      probes.push([
        `POST ${options.endpoint} (another Origin, no token, a body that is not JSON)`,
        options.endpoint,
        {
          method: 'POST',
          headers: { origin: `https://${OTHER_HOST}`, 'content-type': 'application/json' },
          body: '{',
        },
      ]);
      probes.push([
        `POST ${options.endpoint} (a hop as a page of the server's own would send it)`,
        options.endpoint,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doorProbe('host')) },
      ]);
      const problems: string[] = [];
      for (const [what, url, init] of probes) {
        const answer = await sendWithHost(url, { ...init, host, timeoutMs: context.timeoutMs });
        const code = errorCodeOf(answer.body);
        if (answer.status !== 421 || code !== 'host_not_allowed')
          problems.push(`${what} answered ${answer.status}${code ? ` ${code}` : ''}, expected 421 host_not_allowed`);
        if (answer.headers.has('set-cookie')) problems.push(`${what} set a cookie: a session was minted for ${host}`);
        if (answer.text.toLowerCase().includes(OTHER_HOST))
          problems.push(`${what}: the answer echoes the host ${OTHER_HOST}`);
      }
      return problems.length === 0
        ? pass(`Host: ${host} refused with 421 host_not_allowed on ${probes.length} requests, no cookie, no echo`)
        : fail(problems.join('; '));
    },
  }),
];
