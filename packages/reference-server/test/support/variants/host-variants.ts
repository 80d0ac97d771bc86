// Planted bugs of the Host rules (spec §4.5): the host names a server answers, the refusal's place and words, and the
// request's own origin as its Host names it, with and without a port. The kit sends these Hosts over a socket of its
// own (hosts.other-host-refused, origin.own-origin-by-port).
import { errorAnswer, realApp, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The names the reference server answers by default, bound to loopback. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The same request with its URL (so the host the app reads) at `host`, as a proxy that rewrites `Host` sends it. */
async function atHost(request: Request, host: string): Promise<Request> {
  const url = new URL(request.url);
  url.host = host;
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  return new Request(url, { method: request.method, headers: request.headers, body });
}

/** A request whose Host the reference server does not serve, moved to the loopback name with its port. */
function servedAnyway(request: Request): Promise<Request> {
  const url = new URL(request.url);
  return atHost(request, `127.0.0.1${url.port ? `:${url.port}` : ''}`);
}

const isOtherHost = (request: Request) => !LOOPBACK.has(new URL(request.url).hostname);

export const HOST_VARIANTS = {
  'any-host-by-default': {
    bug: 'a server bound to loopback answers every host name by default (no --allowed-hosts means no Host check), so a DNS-rebinding page is served',
    breaks: [must('spec §4.5', 'MUST by default answer only the loopback names')],
    caughtBy: 'hosts.other-host-refused',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) =>
        next(isOtherHost(request) ? await servedAnyway(request) : request),
      ),
  },
  'host-refused-after-session': {
    bug: 'the Host check runs after the session middleware: a token request naming another host is refused with 421, but a session was minted and its cookie set',
    breaks: [must('spec §4.5', 'a server MUST answer only the host names it is meant to serve')],
    caughtBy: 'hosts.other-host-refused',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        if (!isOtherHost(request)) return next(request);
        const served = await next(await servedAnyway(request));
        const refusal = errorAnswer(
          421,
          'host_not_allowed',
          'This server does not answer to this host name. Its operator can allow it (--allowed-hosts).',
        );
        const cookie = served.headers.get('set-cookie');
        if (cookie) refusal.headers.set('set-cookie', cookie);
        return refusal;
      }),
  },
  'host-echoed': {
    bug: 'the 421 host_not_allowed message names the host it refused, so a page of that host reads its own name back',
    breaks: [must('spec §4.5', 'The error MUST NOT echo the host.')],
    caughtBy: 'hosts.other-host-refused',
    build: (fixtures) =>
      wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        if (response.status !== 421) return response;
        return errorAnswer(421, 'host_not_allowed', `This server does not answer to ${new URL(request.url).host}.`);
      }),
  },
  'own-origin-with-listening-port': {
    bug: "the request's own origin is built from the port the server listens on, not from the Host header, so a Host without a port (a proxy on the default port) never matches its own page's Origin, and an Origin naming the port does",
    breaks: [must('spec §4.5', 'a server MUST compare it by host name and port only')],
    caughtBy: 'origin.own-origin-by-port',
    build: (fixtures) => {
      let port = '';
      return wrap(realApp(fixtures), async (request, next) => {
        const url = new URL(request.url);
        if (url.port) port = url.port;
        return next(url.port || !port ? request : await atHost(request, `${url.hostname}:${port}`));
      });
    },
  },
} satisfies Record<string, BrokenVariant>;
