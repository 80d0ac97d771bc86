// Planted bugs of revision 1.4: streamed hops (spec §6.1).
import type { CanvasAiApp } from '../../../src/app.js';
import { isHopPost, realApp, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/**
 * A stream whose outputs line is sent after the model's first words (a server that forwards the model's text as it
 * comes but writes the outputs when the decision returns), the rest as it was.
 */
function outputsAfterText(app: CanvasAiApp): CanvasAiApp {
  return wrap(
    app,
    async (request, next) => {
      const response = await next(request);
      if (!isHopPost(request) || !(response.headers.get('content-type') ?? '').startsWith('application/x-ndjson'))
        return response;
      const lines = (await response.text()).split('\n').filter((line) => line !== '');
      const typeOf = (line: string) => (JSON.parse(line) as { type: string }).type;
      const outputs = lines.findIndex((line) => typeOf(line) === 'outputs');
      if (outputs !== -1 && lines.some((line) => typeOf(line) === 'text')) {
        const [moved] = lines.splice(outputs, 1);
        lines.splice(lines.findIndex((line) => typeOf(line) === 'text') + 1, 0, moved!);
      }
      return new Response(lines.map((line) => `${line}\n`).join(''), {
        status: response.status,
        headers: response.headers,
      });
    },
    { streams: true },
  );
}

export const STREAM_VARIANTS = {
  'stream-outputs-after-text': {
    bug: "a streamed hop's outputs line comes after the model's first words instead of before any text line",
    breaks: [must('spec §6.1', 'The `outputs` line MUST come before')],
    caughtBy: 'stream.outputs-first',
    build: (fixtures) => outputsAfterText(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
