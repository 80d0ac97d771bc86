// A tiny scripted hop server for the edge cases scenario fixtures cannot express (errors, XSS, slow hops).
import { PROTOCOL_VERSION, type HopRequest, type ToolOutput } from '@canvas-ai/protocol';
import { http, HttpResponse } from 'msw';

/** How the server answers one hop, given the request body the client sent. */
export type HopStep = (body: HopRequest) => Response | Promise<Response>;

/** Serves `steps[hop - 1]` for each hop, plus the cancel endpoint; `received` holds every hop body in order. */
export function hopServer(steps: HopStep[]) {
  const received: HopRequest[] = [];
  const handlers = [
    http.post('*/api/hop', async ({ request }) => {
      const type = request.headers.get('content-type') ?? '';
      const body = type.startsWith('multipart/')
        ? JSON.parse(String((await request.formData()).get('request')))
        : ((await request.json()) as HopRequest);
      received.push(body);
      const step = steps[body.hop - 1];
      if (!step)
        return HttpResponse.json(
          {
            status: false,
            should_continue: false,
            progress: '',
            message: 'no such hop',
            error: { code: 'hop_out_of_order' },
          },
          { status: 409 },
        );
      return step(body);
    }),
    http.delete('*/api/hop/:id', ({ params }) =>
      HttpResponse.json({ status: true, request_id: params.id, cancelled: true }),
    ),
  ];
  return { handlers, received };
}

/** The agent every scripted response names. */
const PAGE_BUILDER = { id: 'page_builder', label: 'Page builder' };

/** A hop after which the turn goes on. */
export function continuing(fields: {
  progress?: string;
  outputs?: ToolOutput[];
  agent?: { id: string; label: string };
}): HopStep {
  return (body) =>
    HttpResponse.json({
      status: true,
      protocol: PROTOCOL_VERSION,
      request_id: body.request_id,
      hop: body.hop,
      agent: fields.agent ?? PAGE_BUILDER,
      should_continue: true,
      outputs: fields.outputs ?? [],
      progress: fields.progress ?? '',
    });
}

/** The last hop of a turn. */
export function final(fields: {
  message: string;
  progress?: string;
  outputs?: ToolOutput[];
  agent?: { id: string; label: string };
}): HopStep {
  return (body) =>
    HttpResponse.json({
      status: true,
      protocol: PROTOCOL_VERSION,
      request_id: body.request_id,
      hop: body.hop,
      agent: fields.agent ?? PAGE_BUILDER,
      should_continue: false,
      outputs: fields.outputs ?? [],
      progress: fields.progress ?? '',
      message: fields.message,
      finish_reason: 'answer',
    });
}

/** A promise the test resolves by hand (to hold a hop in flight without timing). */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
