import { applyOutputsWithResults, type ApplyResult, type CanvasDocument, type HopResponse } from '@canvas-ai/protocol';
import type { ApplyInfo } from '../../src/loop.js';

/**
 * A host page whose store is a protocol CanvasDocument changed only by the shared reducer. It counts getLayout calls
 * and records, per `afterHop(request_id, hop)` key, the layout and apply results each hop's outputs produced.
 */
export function reducerHost(start: CanvasDocument) {
  const host = {
    document: start,
    getLayoutCalls: 0,
    layoutAfterHop: new Map<string, unknown>(),
    resultsOfHop: new Map<string, ApplyResult[]>(),
    getLayout: () => {
      host.getLayoutCalls += 1;
      return host.document;
    },
    /** What each undo applied to the store (the inverse outputs, in order) and what it reported. */
    undos: [] as Array<{ info: ApplyInfo; outputs: HopResponse['outputs']; results: ApplyResult[] }>,
    applyOutputs: (outputs: HopResponse['outputs'], response: HopResponse | undefined, info?: ApplyInfo) => {
      const { document, results } = applyOutputsWithResults(host.document, outputs);
      host.document = document;
      // A hop's outputs come with its response, or before it on a streamed hop (`response` undefined, `info.hop` set).
      const hop = response
        ? { requestId: response.request_id, hop: response.hop }
        : info?.kind === 'hop'
          ? info
          : undefined;
      if (hop?.hop !== undefined) {
        host.layoutAfterHop.set(afterHop(hop.requestId, hop.hop), structuredClone(document.layout));
        host.resultsOfHop.set(afterHop(hop.requestId, hop.hop), results);
      } else if (info) host.undos.push({ info, outputs, results });
      return results;
    },
  };
  return host;
}

/** The key of one hop of one turn in a {@link reducerHost}'s records. */
export function afterHop(requestId: string, hop: number): string {
  return `${requestId}#${hop}`;
}
