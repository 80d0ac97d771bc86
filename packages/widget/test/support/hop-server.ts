// A tiny scripted hop server for the edge cases scenario fixtures cannot express (errors, XSS, slow hops).
// The responses come from the protocol's own builders, the ones the reference server answers with.
import type { HopRequest, HopUsage, ToolOutput } from '@canvas-ai/protocol';
import { answerResponse, continuingResponse, HopError, type HopResponseHead } from '@canvas-ai/protocol/server';
import { http, HttpResponse } from 'msw';

/** How the server answers one hop, given the request body the client sent. */
export type HopStep = (body: HopRequest) => Response | Promise<Response>;

/**
 * Serves `steps[hop - 1]` for each hop, plus the cancel endpoint; `received` holds every hop body in order, and
 * `idle()` says whether every request that reached the server has been answered.
 */
export function hopServer(steps: HopStep[]) {
  const received: HopRequest[] = [];
  let answering = 0;
  const answer = async (respond: () => Response | Promise<Response>): Promise<Response> => {
    answering += 1;
    try {
      return await respond();
    } finally {
      answering -= 1;
    }
  };
  const handlers = [
    http.post('*/api/hop', ({ request }) =>
      answer(async () => {
        const type = request.headers.get('content-type') ?? '';
        const body = type.startsWith('multipart/')
          ? JSON.parse(String((await request.formData()).get('request')))
          : ((await request.json()) as HopRequest);
        received.push(body);
        const step = steps[body.hop - 1];
        if (!step) return new HopError('hop_out_of_order', 'no such hop', { requestId: body.request_id }).toResponse();
        return step(body);
      }),
    ),
    http.delete('*/api/hop/:id', ({ params }) =>
      answer(() => HttpResponse.json({ status: true, request_id: params.id, cancelled: true })),
    ),
  ];
  return { handlers, received, idle: () => answering === 0 };
}

/** The agent every scripted response names. */
const PAGE_BUILDER = { id: 'page_builder', label: 'Page builder' };

/** What a scripted hop answers with, besides its narration. */
interface StepFields {
  progress?: string;
  outputs?: ToolOutput[];
  agent?: { id: string; label: string };
  /** What the hop and the turn so far cost (spec §6.2); absent: the server reports none. */
  usage?: HopUsage;
}

/** The response head the protocol's builders take: this hop of this turn. */
function headOf(body: HopRequest, fields: StepFields): HopResponseHead {
  return {
    requestId: body.request_id,
    hop: body.hop,
    agent: fields.agent ?? PAGE_BUILDER,
    outputs: fields.outputs ?? [],
    usage: fields.usage,
  };
}

/** A hop after which the turn goes on; `progress` is the turn's narration so far (one model text, so as given). */
export function continuing(fields: StepFields): HopStep {
  return (body) => HttpResponse.json(continuingResponse(headOf(body, fields), [fields.progress ?? '']));
}

/** The last hop of a turn: the protocol strips the answer off the narration, so `progress` stays as given. */
export function final(fields: StepFields & { message: string }): HopStep {
  return (body) => HttpResponse.json(answerResponse(headOf(body, fields), [fields.progress ?? '', fields.message]));
}

/** A promise the test resolves by hand (to hold a hop in flight without timing). */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
