// The hop loop on its own: no element, no Lit, as a React or Vue host would use it.
import type { CanvasDocument } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { runTurn, startTurn, type RetryReport, type TurnOptions } from '../src/hop-loop.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { afterHop, reducerHost } from './support/reducer-host.js';
import { continuing, deferred, final, hopServer } from './support/hop-server.js';
import { useHandlers } from './support/worker.js';

const emptyDocument = (): CanvasDocument => ({ layout: { regions: { content: { components: [] } } }, page: {} });

/** A protocol error response. */
function errorResponse(status: number, code: string, message: string, progress = ''): Response {
  return HttpResponse.json({ status: false, should_continue: false, progress, message, error: { code } }, { status });
}

const baseOptions = (overrides: Partial<TurnOptions> = {}): TurnOptions => ({
  endpoint: '/api/hop',
  messages: [{ role: 'user', text: 'Hello' }],
  getLayout: emptyDocument,
  ...overrides,
});

describe('the hop loop (without the element)', () => {
  it('plays a multi-hop scenario, each hop carrying the layout applyOutputs produced from the previous outputs', async () => {
    const fixtures = await loadFixtures();
    const cookieShop = await scenario('cookie-shop');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers({ ...fixtures, scenarios: fixtures.scenarios }));
    const host = reducerHost({ layout: fixtures.layouts['layouts/empty.yaml']!, page: {} });
    const hops: number[] = [];

    const result = await runTurn({
      endpoint: '/api/hop',
      messages: [{ role: 'user', text: cookieShop.user_message }],
      agent: cookieShop.agent,
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      onHop: (report) => hops.push(report.hop),
    });

    expect(result.status, JSON.stringify(result)).to.equal('done');
    const posts = record.posts();
    const count = cookieShop.hops.length;
    expect(posts.map((post) => post.body.hop)).to.deep.equal(Array.from({ length: count }, (_, index) => index + 1));
    expect(hops).to.deep.equal(posts.map((post) => post.body.hop));
    expect(host.getLayoutCalls).to.equal(count);
    expect(new Set(posts.map((post) => post.body.request_id)).size).to.equal(1);
    posts.forEach((post, index) => {
      const hop = index + 1;
      expect(post.contentType).to.equal('application/json');
      if (hop === 1) {
        expect(post.body.context.current_layout).to.deep.equal(fixtures.layouts['layouts/empty.yaml']);
        expect(post.body.messages).to.deep.equal([{ role: 'user', text: cookieShop.user_message }]);
        expect(post.body).not.to.have.property('apply_results');
      } else {
        expect(post.body.context.current_layout, `layout of hop ${hop}`).to.deep.equal(
          host.layoutAfterHop.get(afterHop(post.body.request_id, hop - 1)),
        );
        expect(post.body.apply_results, `apply_results of hop ${hop}`).to.deep.equal(
          host.resultsOfHop.get(afterHop(post.body.request_id, hop - 1)),
        );
        expect(post.body).not.to.have.property('messages');
      }
    });
    // The page really grew: five rows, and the title set on the last hops.
    expect(host.document.layout.regions.content!.components).to.have.length(5);
    expect(host.document.page.title).to.be.a('string');
    if (result.status === 'done') expect(result.response.message).to.equal(cookieShop.hops.at(-1)!.message);
  });

  it('answers a one-hop question with one JSON request and no apply_results', async () => {
    const fixtures = await loadFixtures();
    const qa = await scenario('qa-one-hop');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(fixtures));

    const result = await runTurn(baseOptions({ messages: [{ role: 'user', text: qa.user_message }] }));

    expect(result.status).to.equal('done');
    expect(record.posts()).to.have.length(1);
    expect(record.posts()[0]!.body).to.include.keys('protocol', 'request_id', 'hop', 'messages', 'context');
    expect(record.posts()[0]!.body).not.to.have.any.keys('agent', 'apply_results');
  });

  it('sends hop 1 as multipart when the user attached files, and every later hop as JSON', async () => {
    const fixtures = await loadFixtures();
    const photo = await scenario('image-attachment');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(fixtures));
    const file = new File([fixtures.attachments['attachments/cookie.png']!.slice()], 'cookie.png', {
      type: 'image/png',
    });
    const host = reducerHost(emptyDocument());

    const result = await runTurn(
      baseOptions({
        messages: [{ role: 'user', text: photo.user_message }],
        agent: photo.agent,
        attachments: [file],
        getLayout: host.getLayout,
        applyOutputs: host.applyOutputs,
      }),
    );

    expect(result.status, JSON.stringify(result)).to.equal('done');
    const [first, ...later] = record.posts();
    expect(first!.contentType).to.equal('multipart/form-data');
    expect(first!.parts).to.deep.equal([{ name: 'request' }, { name: 'attachments', file: 'cookie.png' }]);
    expect(first!.body.hop).to.equal(1);
    expect(later).to.have.length(photo.hops.length - 1);
    for (const post of later) expect(post.contentType).to.equal('application/json');
  });

  it('never writes "undefined" or a key twice into a request', async () => {
    const server = hopServer([continuing({ progress: 'one' }), final({ message: 'done' })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    await runTurn(
      baseOptions({
        attachments: [new File([new Uint8Array([1])], 'a.png')],
        agent: undefined,
        conversationId: undefined,
      }),
    );

    for (const post of record.posts()) {
      expect(post.json).not.to.contain('undefined');
      expect(post.json).not.to.contain('null,"request_id"');
      const keys = [...post.json!.matchAll(/"([a-z_]+)":/g)].map((match) => match[1]);
      const topLevel = Object.keys(post.body);
      expect(new Set(topLevel).size).to.equal(topLevel.length);
      expect(keys.filter((key) => key === 'request_id')).to.have.length(1);
    }
    expect(record.posts()[0]!.parts!.filter((part) => part.name === 'request')).to.have.length(1);
  });

  it('sends the CSRF token on every hop and on the cancel', async () => {
    const server = hopServer([continuing({}), continuing({})]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const turn = startTurn(baseOptions({ csrfToken: () => 'token-123', maxHops: 2 }));

    const result = await turn.result;

    expect(result.status).to.equal('error');
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
    for (const entry of [...record.posts(), ...record.deletes()])
      expect(entry.headers.get('x-csrf-token')).to.equal('token-123');
  });

  it('with trace on, sends one trace id per turn in a traceparent on every request, a new parent id each time', async () => {
    let failures = 0;
    const flaky = http.post('*/api/hop', async ({ request }) => {
      const body = (await request.clone().json()) as { hop: number };
      if (body.hop === 2 && failures === 0) {
        failures += 1;
        return HttpResponse.error();
      }
      return undefined;
    });
    const record = recorder();
    const turns = [
      hopServer([continuing({}), final({ message: 'one' })]),
      hopServer([continuing({}), final({ message: 'two' })]),
    ];
    const parsed = () =>
      record.posts().map((post) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(post.headers.get('traceparent') ?? ''));

    await useHandlers(record.handler, flaky, ...turns[0]!.handlers);
    expect((await runTurn(baseOptions({ trace: true, retryDelays: [1] }))).status).to.equal('done');
    const first = parsed();
    expect(first, 'hop 1, hop 2 failed once, hop 2 again').to.have.length(3);
    expect(first.every((match) => match !== null)).to.equal(true);
    expect(new Set(first.map((match) => match![1])).size, 'one trace id for the turn').to.equal(1);
    expect(new Set(first.map((match) => match![2])).size, 'a new parent id per request').to.equal(3);

    record.requests.length = 0;
    await useHandlers(record.handler, ...turns[1]!.handlers);
    expect((await runTurn(baseOptions({ trace: true }))).status).to.equal('done');
    const second = parsed();
    expect(second.map((match) => match![1])).to.deep.equal([second[0]![1], second[0]![1]]);
    expect(second[0]![1], 'each turn its own trace').not.to.equal(first[0]![1]);
  });

  it('sends no traceparent unless trace is on', async () => {
    const server = hopServer([continuing({}), final({ message: 'ok' })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    expect((await runTurn(baseOptions())).status).to.equal('done');
    expect(record.posts()).to.have.length(2);
    expect(record.posts().map((post) => post.headers.get('traceparent'))).to.deep.equal([null, null]);
  });

  it('retries a hop whose fetch rejected once, after a wait, with the same hop number and body', async () => {
    let failures = 0;
    const server = hopServer([continuing({ progress: 'a' }), final({ message: 'ok' })]);
    const record = recorder();
    const flaky = http.post('*/api/hop', async ({ request }) => {
      const body = (await request.clone().json()) as { hop: number };
      if (body.hop === 2 && failures === 0) {
        failures += 1;
        return HttpResponse.error();
      }
      return undefined;
    });
    await useHandlers(record.handler, flaky, ...server.handlers);
    const retries: RetryReport[] = [];

    const result = await runTurn(baseOptions({ retryDelays: [1, 1, 1], onRetry: (report) => retries.push(report) }));

    expect(result.status).to.equal('done');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 2]);
    expect(new Set(record.posts().map((post) => post.json)).size).to.equal(2);
    expect(retries.map(({ hop, attempt, delay, reason }) => ({ hop, attempt, delay, reason }))).to.deep.equal([
      { hop: 2, attempt: 2, delay: 1, reason: 'network' },
    ]);
  });

  it('gives up once the retries run out, with a network error, and cancels the turn', async () => {
    const server = hopServer([continuing({})]);
    const record = recorder();
    const down = http.post('*/api/hop', async ({ request }) =>
      ((await request.clone().json()) as { hop: number }).hop === 2 ? HttpResponse.error() : undefined,
    );
    await useHandlers(record.handler, down, ...server.handlers);

    const result = await runTurn(baseOptions({ retryDelays: [1, 1] }));

    expect(result.status).to.equal('error');
    if (result.status === 'error') {
      expect(result.error.kind).to.equal('network');
      expect(result.error.hop).to.equal(2);
      expect(result.error.message).to.contain('tried 3 times');
      // The page's own origin: nothing to allow, so neither the origin nor the setting is named.
      expect(result.error.serverOrigin).to.equal(undefined);
      expect(result.error.message).not.to.contain('--allowed-origins');
    }
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 2, 2]);
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });

  it('after a dropped connection, waits out hop_in_progress and gets the replay: the turn completes and is not cancelled', async () => {
    // The server keeps executing hop 2 after the connection dropped: the first retry finds it still running (409),
    // the next one gets the stored response.
    let hop2Tries = 0;
    const server = hopServer([
      continuing({ progress: 'Adding a hero.' }),
      (body) => {
        hop2Tries += 1;
        if (hop2Tries === 1) return HttpResponse.error();
        if (hop2Tries === 2)
          return errorResponse(
            409,
            'hop_in_progress',
            'This turn is still working on hop 2. Try again shortly.',
            'Adding a hero.',
          );
        return final({ progress: 'Adding a hero.', message: 'Done: a hero.' })(body);
      },
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const retries: RetryReport[] = [];

    const result = await runTurn(baseOptions({ retryDelays: [1, 1, 1], onRetry: (report) => retries.push(report) }));

    expect(result.status, JSON.stringify(result)).to.equal('done');
    if (result.status === 'done') expect(result.response.message).to.equal('Done: a hero.');
    const hop2 = record.posts().filter((post) => post.body.hop === 2);
    expect(hop2).to.have.length(3);
    expect(new Set(hop2.map((post) => post.json)).size, 'the same body each time').to.equal(1);
    expect(retries.map((report) => report.reason)).to.deep.equal(['network', 'hop_in_progress']);
    expect(retries.map((report) => report.attempt)).to.deep.equal([2, 3]);
    // A DELETE would have dropped the turn the server was still running; a turn that ends done never sends one.
    expect(record.deletes()).to.have.length(0);
  });

  it('waits and sends the same hop again after a 503', async () => {
    let refused = false;
    const server = hopServer([
      (body) => {
        if (refused) return final({ message: 'Hello.' })(body);
        refused = true;
        return errorResponse(503, 'store_unavailable', 'The turn store cannot be reached. Try again in a moment.');
      },
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const retries: RetryReport[] = [];

    const result = await runTurn(baseOptions({ retryDelays: [1], onRetry: (report) => retries.push(report) }));

    expect(result.status).to.equal('done');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 1]);
    expect(record.posts()[0]!.json).to.equal(record.posts()[1]!.json);
    expect(retries.map((report) => report.reason)).to.deep.equal(['unavailable']);
    expect(record.deletes()).to.have.length(0);
  });

  it('ends the turn with the server error once hop_in_progress outlasts the retries', async () => {
    const server = hopServer([() => errorResponse(409, 'hop_in_progress', 'Still working.')]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(baseOptions({ retryDelays: [1, 1] }));

    expect(result.status).to.equal('error');
    if (result.status === 'error') expect(result.error.code).to.equal('hop_in_progress');
    expect(record.posts()).to.have.length(3);
  });

  it('does not retry a 409 other than hop_in_progress', async () => {
    const server = hopServer([() => errorResponse(409, 'agent_changed', 'This turn belongs to another agent.')]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(baseOptions({ retryDelays: [1, 1] }));

    expect(result.status === 'error' && result.error.code).to.equal('agent_changed');
    expect(record.posts()).to.have.length(1);
  });

  it('after a 403 csrf_invalid, asks the token source for a fresh token and sends the same hop once more', async () => {
    const server = hopServer([continuing({}), final({ message: 'ok' })]);
    const record = recorder();
    const guard = http.post('*/api/hop', ({ request }) =>
      request.headers.get('x-csrf-token') === 'fresh'
        ? undefined
        : errorResponse(403, 'csrf_invalid', 'Missing or wrong X-CSRF-Token header.'),
    );
    await useHandlers(record.handler, guard, ...server.handlers);
    const asked: boolean[] = [];
    let token = 'stale';
    const csrfToken = (request?: { refresh: boolean }) => {
      asked.push(request?.refresh ?? false);
      if (request?.refresh) token = 'fresh';
      return token;
    };

    const result = await runTurn(baseOptions({ csrfToken, retryDelays: [] }));

    expect(result.status, JSON.stringify(result)).to.equal('done');
    expect(record.posts().map((post) => [post.body.hop, post.headers.get('x-csrf-token')])).to.deep.equal([
      [1, 'stale'],
      [1, 'fresh'],
      [2, 'fresh'],
    ]);
    expect(record.posts()[0]!.json).to.equal(record.posts()[1]!.json);
    expect(asked).to.deep.equal([false, true, false]);
  });

  it('sends a hop again only once for csrf_invalid: a fresh token refused too ends the turn', async () => {
    const server = hopServer([() => errorResponse(403, 'csrf_invalid', 'Missing or wrong X-CSRF-Token header.')]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    let issued = 0;
    const csrfToken = () => {
      issued += 1;
      return `token-${issued}`;
    };

    const result = await runTurn(baseOptions({ csrfToken, retryDelays: [1, 1] }));

    expect(result.status === 'error' && result.error.code).to.equal('csrf_invalid');
    expect(record.posts().map((post) => post.headers.get('x-csrf-token'))).to.deep.equal(['token-1', 'token-2']);
  });

  it('does not resend a refused fixed token string', async () => {
    const server = hopServer([() => errorResponse(403, 'csrf_invalid', 'Missing or wrong X-CSRF-Token header.')]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(baseOptions({ csrfToken: 'fixed', retryDelays: [1] }));

    expect(result.status === 'error' && result.error.code).to.equal('csrf_invalid');
    expect(record.posts()).to.have.length(1);
  });

  it('stops during the wait before a retry: no request follows but the cancel', async () => {
    const server = hopServer([() => errorResponse(503, 'store_unavailable', 'The turn store cannot be reached.')]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    let waiting = false;
    // A wait far longer than the test's timeout: the turn ends only if stop cuts it short.
    const turn = startTurn(baseOptions({ retryDelays: [600_000], onRetry: () => (waiting = true) }));

    await waitUntil(() => waiting, 'the loop never began to wait');
    turn.stop();
    const result = await turn.result;

    expect(result.status).to.equal('stopped');
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
    expect(record.posts()).to.have.length(1);
    expect(record.requests).to.have.length(2);
  });

  it('ends the turn on an HTTP error, keeping the server code and message, without retrying', async () => {
    const server = hopServer([
      continuing({ progress: 'first' }),
      () =>
        HttpResponse.json(
          {
            status: false,
            should_continue: false,
            progress: 'first',
            message: 'The model provider failed.',
            error: { code: 'provider_error' },
          },
          { status: 502 },
        ),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(baseOptions());

    expect(result.status).to.equal('error');
    if (result.status !== 'error') return;
    expect(result.error.kind).to.equal('http');
    expect(result.error.status).to.equal(502);
    expect(result.error.code).to.equal('provider_error');
    expect(result.error.message).to.equal('The model provider failed.');
    expect(result.lastResponse?.progress).to.equal('first');
    expect(record.posts()).to.have.length(2);
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });

  it('treats status: false with HTTP 200 as an error', async () => {
    const server = hopServer([
      () =>
        HttpResponse.json({
          status: false,
          should_continue: false,
          progress: '',
          message: 'No.',
          error: { code: 'invalid_request' },
        }),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const result = await runTurn(baseOptions());
    expect(result.status === 'error' && result.error.kind).to.equal('server');
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });

  it('rejects a response that does not follow the protocol schema', async () => {
    const server = hopServer([() => HttpResponse.json({ status: true, should_continue: true, outputs: 'nope' })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const result = await runTurn(baseOptions());
    expect(result.status === 'error' && result.error.kind).to.equal('invalid_response');
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });

  it('ends a turn the server never finishes at the safety net, with a clear error', async () => {
    const server = hopServer(Array.from({ length: 10 }, () => continuing({})));
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(baseOptions({ maxHops: 3 }));

    expect(result.status).to.equal('error');
    if (result.status === 'error') {
      expect(result.error.kind).to.equal('too_many_hops');
      expect(result.error.message).to.contain('3');
    }
    expect(record.posts()).to.have.length(3);
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });

  it('stops mid-turn: the in-flight hop is aborted, the cancel is sent and no hop follows', async () => {
    const gate = deferred();
    const server = hopServer([
      continuing({ progress: 'one' }),
      async (body) => {
        await gate.promise;
        return continuing({})(body);
      },
      continuing({}),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const turn = startTurn(baseOptions());

    await waitUntil(() => server.received.length === 2, 'hop 2 never reached the server');
    turn.stop();
    const result = await turn.result;
    gate.resolve();

    expect(result.status).to.equal('stopped');
    expect(turn.stopped).to.equal(true);
    await waitUntil(
      () => record.deletes().some((entry) => entry.path === `/api/hop/${turn.requestId}`),
      'the cancel was not sent',
    );
    expect(record.posts()).to.have.length(2);
  });

  it('stops through an AbortSignal too, before anything is sent', async () => {
    const record = recorder();
    await useHandlers(record.handler);
    const controller = new AbortController();
    controller.abort();
    let calls = 0;

    const result = await runTurn(
      baseOptions({
        signal: controller.signal,
        getLayout: () => {
          calls += 1;
          return emptyDocument();
        },
      }),
    );

    expect(result.status).to.equal('stopped');
    expect(calls).to.equal(0);
    expect(record.requests).to.have.length(0);
  });

  it('reports a failing host function as a host error and cancels', async () => {
    const server = hopServer([continuing({})]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);

    const result = await runTurn(
      baseOptions({
        applyOutputs: () => {
          throw new Error('store is read-only');
        },
      }),
    );

    expect(result.status).to.equal('error');
    if (result.status === 'error') {
      expect(result.error.kind).to.equal('host');
      expect(result.error.message).to.contain('store is read-only');
    }
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
  });
});
