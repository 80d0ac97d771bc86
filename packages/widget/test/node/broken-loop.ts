// Planted bugs of a client, for the client kit to catch (test/node/client-conformance.test.ts): the reference loop
// (runHeadlessTurn) behind a `fetch` that breaks one client rule each, at the seam where a real client goes wrong.
// Run as an adapter command: broken-loop.ts VARIANT SERVER MESSAGE AGENT [ATTACHMENT [ANSWERS [OUT [SHOWN]]]]; SIGINT
// stops the turn; the page the turn made is written to OUT, and what the person read (the narration, then the answer
// or the error) to SHOWN.
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { applyOutputsWithResults, type CanvasDocument, type ToolOutput } from '@canvas-ai/protocol';
import { runHeadlessTurn } from '../../src/loop.js';
import { ScriptedAnswers, scriptedWaits } from '../../src/node/scripted-answers.js';

export interface BrokenLoop {
  /** What the bug does. */
  bug: string;
  /** The client check that must fail. */
  caughtBy: string;
  /** Checks that may fail too, because the bug also breaks their rule. */
  alsoFailing?: readonly string[];
  /** The kit's scenarios that show it (the run is shorter than all of them). */
  scenarios: readonly string[];
  /** `fetch` with the bug. */
  fetch(send: typeof fetch): typeof fetch;
  /** What the person reads of a text the client shows (default: the text as it is). */
  shown?(text: string): string;
  /** The host's last act on the page once the turn has ended, before the adapter writes it (default: none). */
  afterTurn?(document: CanvasDocument): Promise<CanvasDocument>;
}

/** The responses of hops the stop should have aborted, which `applies-late-response` lets run on. */
const lateResponses: Array<Promise<{ outputs?: ToolOutput[] } | undefined>> = [];
/** How long the host waits for a late response before it writes its page. */
const LATE_WAIT_MS = 3_000;

/** A hop request's JSON body, and the same request with `change` made to it. */
function hopBody(init: RequestInit | undefined): Record<string, unknown> | undefined {
  if (typeof init?.body !== 'string') return undefined;
  try {
    return JSON.parse(init.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function isHop(input: RequestInfo | URL, init?: RequestInit): boolean {
  return String(input instanceof Request ? input.url : input).endsWith('/api/hop') && init?.method === 'POST';
}

/** A `fetch` that changes the JSON body of every hop after the first. */
function laterHops(change: (body: Record<string, unknown>) => void) {
  return (send: typeof fetch): typeof fetch =>
    (input, init) => {
      const body = isHop(input, init) ? hopBody(init) : undefined;
      if (!body || body.hop === 1) return send(input, init);
      change(body);
      return send(input, { ...init, body: JSON.stringify(body) });
    };
}

/** A `fetch` that leaves `field` out of hop 1's `capabilities`. */
function withoutCapability(field: 'waits' | 'outputs') {
  return (send: typeof fetch): typeof fetch =>
    (input, init) => {
      const body = isHop(input, init) ? hopBody(init) : undefined;
      const capabilities = body?.capabilities as Record<string, unknown> | undefined;
      if (body?.hop !== 1 || !capabilities) return send(input, init);
      delete capabilities[field];
      return send(input, { ...init, body: JSON.stringify(body) });
    };
}

/** A `fetch` that hands the loop every JSON hop response as `change` leaves it (`JSON.parse`'s reviver). */
function revivedResponses(change: (key: string, value: unknown) => unknown) {
  return (send: typeof fetch): typeof fetch =>
    async (input, init) => {
      const response = await send(input, init);
      const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
      if (!isHop(input, init) || !response.ok || !json) return response;
      return Response.json(JSON.parse(await response.text(), change), {
        status: response.status,
        headers: response.headers,
      });
    };
}

/** A `fetch` that sends a hop once more, at once, when its answer has `status`. */
function resendOn(status: number) {
  return (send: typeof fetch): typeof fetch =>
    async (input, init) => {
      const response = await send(input, init);
      if (!isHop(input, init) || response.status !== status) return response;
      await response.body?.cancel();
      return send(input, init);
    };
}

/** A `fetch` that answers the turn's cancel itself: the server never hears it. */
function withoutCancel(send: typeof fetch): typeof fetch {
  return (input, init) =>
    init?.method === 'DELETE'
      ? Promise.resolve(Response.json({ status: true, request_id: 'x', cancelled: true }))
      : send(input, init);
}

export const BROKEN_LOOPS: Record<string, BrokenLoop> = {
  'forgets-agent': {
    bug: 'hops after the first leave the picked agent out',
    caughtBy: 'client.agent-repeated',
    scenarios: ['build'],
    fetch: laterHops((body) => {
      delete body.agent;
    }),
  },
  'stale-layout': {
    bug: 'each hop carries the layout of the hop before, not the one with its outputs applied',
    caughtBy: 'client.document-fresh',
    scenarios: ['build'],
    fetch: (send) => {
      let previous: unknown;
      return laterHops((body) => {
        const context = body.context as { current_layout: unknown };
        const now = context.current_layout;
        if (previous !== undefined) context.current_layout = previous;
        previous = now;
      })(async (input, init) => send(input, init));
    },
  },
  'no-apply-results': {
    bug: 'hops leave out the apply results of the outputs before',
    caughtBy: 'client.apply-results',
    scenarios: ['refusals'],
    fetch: laterHops((body) => {
      delete body.apply_results;
    }),
  },
  'no-csrf-later': {
    bug: 'hops after the first forget the X-CSRF-Token header',
    caughtBy: 'client.session',
    scenarios: ['build'],
    fetch: (send) => (input, init) => {
      const body = isHop(input, init) ? hopBody(init) : undefined;
      if (!body || body.hop === 1) return send(input, init);
      const headers = new Headers(init?.headers);
      headers.delete('x-csrf-token');
      return send(input, { ...init, headers });
    },
  },
  'copied-uuid': {
    bug: 'the host copies the first component without giving the copy a new uuid',
    caughtBy: 'client.valid-requests',
    alsoFailing: ['client.document-fresh'],
    scenarios: ['build'],
    fetch: laterHops((body) => {
      const components = (body.context as { current_layout: { regions: Record<string, { components: unknown[] }> } })
        .current_layout.regions.content?.components;
      if (components?.[0]) components.push(structuredClone(components[0]));
    }),
  },
  'skips-ahead': {
    bug: 'a hop whose response was lost is followed by the next hop',
    caughtBy: 'client.hop-numbers',
    alsoFailing: ['client.repeat-after-loss', 'client.document-fresh', 'client.apply-results'],
    scenarios: ['lost-response'],
    fetch: (send) => async (input, init) => {
      try {
        return await send(input, init);
      } catch (error) {
        const body = isHop(input, init) ? hopBody(init) : undefined;
        if (!body || typeof body.hop !== 'number') throw error;
        body.hop += 1;
        return send(input, { ...init, body: JSON.stringify(body) });
      }
    },
  },
  'double-send': {
    bug: 'a retry timer sends each hop again while the first request is still unanswered',
    caughtBy: 'client.one-at-a-time',
    scenarios: ['build'],
    fetch: (send) => (input, init) => {
      const body = isHop(input, init) ? hopBody(init) : undefined;
      if (!body || body.hop === 1) return send(input, init);
      const first = send(input, init);
      setTimeout(() => void send(input, init).catch(() => undefined), 0);
      return first;
    },
  },
  'ignores-retry-after': {
    bug: 'a 409 or 503 with Retry-After is sent again at once',
    caughtBy: 'client.retry-after',
    scenarios: ['busy'],
    fetch: resendOn(409),
  },
  'retries-provider-error': {
    bug: 'a hop that failed with 502 provider_error is sent again',
    caughtBy: 'client.no-retry-after-failure',
    scenarios: ['provider-error'],
    fetch: resendOn(502),
  },
  'retries-gone': {
    bug: 'a hop answered 410 turn_not_found is sent again',
    caughtBy: 'client.stops-on-410',
    scenarios: ['gone'],
    fetch: resendOn(410),
  },
  'retries-unknown-code': {
    bug: 'a hop refused with an unknown code is sent again',
    caughtBy: 'client.unknown-code',
    scenarios: ['unknown-code'],
    fetch: resendOn(400),
  },
  'attachments-every-hop': {
    bug: "the person's attachments are sent again with every later hop, as multipart",
    caughtBy: 'client.attachments-hop-1',
    scenarios: ['attachment'],
    fetch: (send) => {
      let files: FormDataEntryValue[] = [];
      return (input, init) => {
        if (!isHop(input, init)) return send(input, init);
        if (init?.body instanceof FormData) {
          files = init.body.getAll('attachments');
          return send(input, init);
        }
        const body = hopBody(init);
        if (!body || files.length === 0) return send(input, init);
        const form = new FormData();
        form.append('request', JSON.stringify(body));
        for (const file of files) form.append('attachments', file);
        const headers = new Headers(init?.headers);
        headers.delete('content-type');
        return send(input, { ...init, headers, body: form });
      };
    },
  },
  'no-wait-for-answer': {
    bug: 'a waiting response is followed at once by the next hop, without the answer, before the person answered',
    caughtBy: 'client.waits-for-answer',
    scenarios: ['question-dismissed'],
    fetch: (send) => async (input, init) => {
      const response = await send(input, init);
      const body = isHop(input, init) ? hopBody(init) : undefined;
      const read =
        body && response.ok
          ? await response
              .clone()
              .json()
              .catch(() => undefined)
          : undefined;
      if (body && typeof body.hop === 'number' && read?.waiting) {
        const next: Record<string, unknown> = { ...body, hop: body.hop + 1 };
        delete next.answer;
        const early = await send(input, { ...init, body: JSON.stringify(next) }).catch(() => undefined);
        await early?.body?.cancel();
      }
      return response;
    },
  },
  'answers-wrong-kind': {
    bug: "a screenshot's answer is labelled as a question's (the fields of both fit the schema)",
    caughtBy: 'client.wait-answer',
    scenarios: ['screenshot-unavailable'],
    fetch: laterHops((body) => {
      const answer = body.answer as { kind?: string } | undefined;
      if (answer?.kind === 'screenshot') answer.kind = 'question';
    }),
  },
  'approves-everything': {
    bug: 'an approval sends every proposed change, not only those the person left ticked',
    caughtBy: 'client.wait-answer',
    scenarios: ['approval-partly-approved'],
    fetch: (send) => {
      let proposed: string[] = [];
      return async (input, init) => {
        const body = isHop(input, init) ? hopBody(init) : undefined;
        const answer = body?.answer as { kind?: string; approved?: string[] } | undefined;
        if (answer?.kind === 'approval') answer.approved = proposed;
        const response = await send(input, answer ? { ...init, body: JSON.stringify(body) } : init);
        const read =
          body && response.ok
            ? await response
                .clone()
                .json()
                .catch(() => undefined)
            : undefined;
        if (read?.waiting?.kind === 'approval')
          proposed = read.waiting.approval.changes.map((change: { call_id: string }) => change.call_id);
        return response;
      };
    },
  },
  'forgets-screenshot-attachment': {
    bug: "a screenshot's answer is sent as JSON, its image left out",
    caughtBy: 'client.screenshot-attachment',
    scenarios: ['screenshot-sent'],
    fetch: (send) => (input, init) => {
      if (!isHop(input, init) || !(init?.body instanceof FormData)) return send(input, init);
      const request = init.body.get('request');
      const headers = new Headers(init.headers);
      headers.set('content-type', 'application/json');
      return typeof request === 'string' && JSON.parse(request).hop > 1
        ? send(input, { ...init, headers, body: request })
        : send(input, init);
    },
  },
  'declares-no-waits': {
    bug: 'hop 1 leaves out the kinds of wait the client answers',
    caughtBy: 'client.waits-declared',
    scenarios: ['question-answered'],
    fetch: withoutCapability('waits'),
  },
  'declares-no-remove-move': {
    bug: 'hop 1 leaves out the output types beyond the v1 three that its host applies',
    caughtBy: 'client.remove-move',
    scenarios: ['remove-move'],
    fetch: withoutCapability('outputs'),
  },
  'removes-without-comparing': {
    bug: "the host drops a removal's or a move's `replaces` before applying it, so a stale one is applied",
    caughtBy: 'client.remove-move',
    // Applying the stale removal also leaves a document the kit did not expect.
    alsoFailing: ['client.document-fresh'],
    scenarios: ['remove-move'],
    fetch: revivedResponses(function (this: { type?: unknown }, key, value) {
      // `replaces` of an output whose `type` is a removal or a move (the holder is `this`).
      const removesOrMoves = this.type === 'remove_components' || this.type === 'move_components';
      return key === 'replaces' && removesOrMoves ? undefined : value;
    }),
  },
  'compares-derived-props': {
    bug: 'the host drops the `derived` lists of the nodes it is sent, so it compares a derived anchor as any prop',
    caughtBy: 'client.derived-props',
    // Without `derived` the stored heading is not the node the kit placed.
    alsoFailing: ['client.document-fresh'],
    scenarios: ['derived-props'],
    // Every `derived` key of the response, wherever a node carries one (placed nodes, a removal's `replaces`).
    fetch: revivedResponses((key, value) => (key === 'derived' ? undefined : value)),
  },
  'placeholders-in-document': {
    bug: "the host keeps the shown plan's placeholder rows in the document it sends",
    caughtBy: 'client.document-fresh',
    scenarios: ['plan-revised-then-approved'],
    fetch: (send) => {
      let planned = 0;
      return async (input, init) => {
        const body = isHop(input, init) ? hopBody(init) : undefined;
        let sent = init;
        if (body && planned > 0) {
          const regions = (body.context as { current_layout: { regions: Record<string, { components: unknown[] }> } })
            .current_layout.regions;
          for (let row = 1; row <= planned; row += 1)
            regions.content?.components.push({ uuid: `planned-row-${row}`, component: 'sdc.demo.hero', props: {} });
          sent = { ...init, body: JSON.stringify(body) };
        }
        const response = await send(input, sent);
        const read =
          body && response.ok
            ? await response
                .clone()
                .json()
                .catch(() => undefined)
            : undefined;
        if (read?.waiting?.kind === 'plan') planned = read.waiting.plan.rows.length;
        return response;
      };
    },
  },
  'applies-late-response': {
    bug: "the stop leaves the hop's request running (the loop sees it aborted), and the host applies its response when it comes",
    caughtBy: 'client.stopped-response-not-applied',
    scenarios: ['stop-late-answer'],
    fetch: (send) => (input, init) => {
      const signal = init?.signal;
      if (!isHop(input, init) || !signal) return send(input, init);
      const request = send(input, { ...init, signal: null });
      return new Promise<Response>((resolve, reject) => {
        signal.addEventListener(
          'abort',
          () => {
            lateResponses.push(
              request.then((response) => (response.ok ? response.json() : undefined)).catch(() => undefined),
            );
            reject(signal.reason);
          },
          { once: true },
        );
        request.then(resolve, reject);
      });
    },
    afterTurn: async (document) => {
      // AbortSignal.timeout's timer does not hold the process open once the page is written.
      const waited = AbortSignal.timeout(LATE_WAIT_MS);
      const timeout = new Promise<undefined>((resolve) => waited.addEventListener('abort', () => resolve(undefined)));
      for (const late of lateResponses) {
        const body = await Promise.race([late, timeout]);
        if (body?.outputs) document = applyOutputsWithResults(document, body.outputs).document;
      }
      return document;
    },
  },
  'applies-outputs-at-response': {
    bug: 'the client reads a streamed hop whole and applies its outputs from the response line, not when the outputs line arrives',
    caughtBy: 'client.outputs-line-applied',
    // Going on past the differing response, it sends a page with the response line's changed title applied.
    alsoFailing: ['client.document-fresh'],
    scenarios: ['stream-stopped-after-outputs', 'stream-outputs-differ'],
    fetch: (send) => async (input, init) => {
      const response = await send(input, init);
      if (!isHop(input, init) || !(response.headers.get('content-type') ?? '').includes('application/x-ndjson'))
        return response;
      const lines = (await response.text()).split('\n');
      const kept = lines.filter(
        (line) => line.trim() === '' || (JSON.parse(line) as { type?: unknown }).type !== 'outputs',
      );
      return new Response(kept.join('\n'), { status: response.status, headers: response.headers });
    },
  },
  'every-403-a-stale-token': {
    bug: 'the client reads a 403 by its status alone, as an expired CSRF token, so it fetches a new token and sends the hop again whatever the code',
    caughtBy: 'client.branches-on-code',
    scenarios: ['origin-refused'],
    fetch: (send) => async (input, init) => {
      const response = await send(input, init);
      if (!isHop(input, init) || response.status !== 403) return response;
      const body = (await response.json()) as { error: { code: string } };
      body.error.code = 'csrf_invalid';
      return Response.json(body, { status: 403, headers: response.headers });
    },
  },
  'renders-markup': {
    bug: 'the chat puts narration, answers and error messages into its HTML as they come, so their tags and markdown are rendered, not shown',
    caughtBy: 'client.shown-as-text',
    scenarios: ['markup', 'markup-error'],
    fetch: (send) => send,
    // What the person reads of rendered markup: the tags' text, without the tags or the asterisks.
    shown: (text) => text.replace(/<[^>]*>/g, '').replaceAll('**', ''),
  },
  'skips-the-replay': {
    bug: 'after a lost response the client numbers its retry as the next hop instead of sending the same hop again',
    caughtBy: 'client.repeat-after-loss',
    // The skipped hop number is also a gap in the turn's numbering, and its page lacks the lost hop's outputs.
    alsoFailing: ['client.hop-numbers', 'client.document-fresh'],
    scenarios: ['lost-response'],
    fetch: (send) => {
      let lost: number | undefined;
      return async (input, init) => {
        const body = isHop(input, init) ? hopBody(init) : undefined;
        const sent =
          body && lost !== undefined && body.hop === lost
            ? { ...init, body: JSON.stringify({ ...body, hop: lost + 1 }) }
            : init;
        try {
          return await send(input, sent);
        } catch (error) {
          if (typeof body?.hop === 'number') lost = body.hop;
          throw error;
        }
      };
    },
  },
  'stream-by-request': {
    bug: 'the client that asked for a stream reads every answer as NDJSON, whatever its Content-Type says',
    caughtBy: 'client.content-type',
    // The JSON answers it cannot read end the build turn before its answer.
    alsoFailing: ['client.usage-optional'],
    scenarios: ['build', 'streamed'],
    fetch: (send) => async (input, init) => {
      const response = await send(input, init);
      if (!isHop(input, init) || !new Headers(init?.headers).get('accept')?.includes('application/x-ndjson'))
        return response;
      const headers = new Headers(response.headers);
      headers.set('content-type', 'application/x-ndjson');
      return new Response(response.body, { status: response.status, headers });
    },
  },
  'requires-usage': {
    bug: 'the client refuses a hop response without `usage` as broken',
    caughtBy: 'client.usage-optional',
    // client.content-type judges the same build turn reaching its answer.
    alsoFailing: ['client.content-type'],
    scenarios: ['build'],
    fetch: (send) => async (input, init) => {
      const response = await send(input, init);
      const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
      if (!isHop(input, init) || !response.ok || !json) return response;
      const body = (await response.clone().json()) as { usage?: unknown };
      if (body.usage === undefined) throw new TypeError('The hop response has no usage.');
      return response;
    },
  },
  'no-cancel': {
    bug: 'the stop aborts the hop but never sends the DELETE',
    caughtBy: 'client.stop',
    scenarios: ['stop'],
    fetch: withoutCancel,
  },
  'no-cancel-while-waiting': {
    bug: 'a stop while a question waits only closes the card (no hop is in flight to abort) and never sends the DELETE',
    caughtBy: 'client.stop-while-waiting',
    scenarios: ['stop-while-waiting'],
    fetch: withoutCancel,
  },
};

export type BrokenLoopName = keyof typeof BROKEN_LOOPS;

/** Whether this module is the command being run (an adapter of the client kit). */
function isTheCommand(): boolean {
  return import.meta.url === new URL(process.argv[1] ?? '', 'file://').href;
}

if (isTheCommand()) {
  const [name, server = '', message = '', agent, attachment = '', answers = '[]', out, shown] = process.argv.slice(2);
  const variant = BROKEN_LOOPS[name ?? ''];
  if (!variant) throw new Error(`No planted bug "${name}"; known: ${Object.keys(BROKEN_LOOPS).join(', ')}`);
  const stop = new AbortController();
  process.on('SIGINT', () => stop.abort());
  const { result, document, progress, answer } = await runHeadlessTurn({
    server,
    message,
    agent,
    attachments: attachment ? [new File([await readFile(attachment)], basename(attachment))] : [],
    document: { layout: { regions: { content: { components: [] } } }, page: {} },
    fetch: variant.fetch(globalThis.fetch),
    signal: stop.signal,
    ...scriptedWaits(ScriptedAnswers.parse(JSON.parse(answers)), {
      readImage: async (path) => new File([await readFile(path)], basename(path)),
      unanswered: () => undefined,
    }),
  });
  const page = variant.afterTurn ? await variant.afterTurn(document) : document;
  if (out) await writeFile(out, JSON.stringify(page));
  const read = [progress, result.status === 'error' ? result.error.message : answer].filter((text) => text !== '');
  if (shown) await writeFile(shown, read.map((text) => variant.shown?.(text) ?? text).join('\n'));
  process.exitCode = result.status === 'done' ? 0 : 1;
}
