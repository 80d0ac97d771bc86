// A large body is parsed in pieces (src/parse/parse-json-pieces.ts) so that no one JSON.parse holds the event loop;
// what it builds and what it refuses must be exactly what one JSON.parse of the whole text gives.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJsonPieces } from '../src/parse/parse-json-pieces.js';
import { type ByteScanReport, scanJsonBytes, scanJsonBytesSteps } from '../src/parse/scan-json-bytes.js';
import type { JsonScanLimits } from '../src/parse/scan-json.js';
import { runStepsNow } from '../src/steps/steps.js';
import { parseHopRequestJson, readHopRequest } from '../src/server.js';

const encoder = new TextEncoder();
const roomy: JsonScanLimits = { maxDepth: 64 };
const wholeDecoder = new TextDecoder('utf-8', { fatal: true });

type Outcome = { value: unknown } | { refused: string };

/** One JSON.parse of the whole text, as the door did before pieces. */
function whole(bytes: Uint8Array): Outcome {
  try {
    return { value: JSON.parse(wholeDecoder.decode(bytes)) };
  } catch (error) {
    return { refused: (error as Error).name };
  }
}

/** The scan with tiny pieces, then the pieces when the scan cut the text (else one JSON.parse, as the door does). */
function inPieces(bytes: Uint8Array, pieceBytes: number): Outcome & { pieced: boolean } {
  const report: ByteScanReport = {};
  const problem = runStepsNow(scanJsonBytesSteps(bytes, roomy, report, pieceBytes));
  assert.equal(problem, undefined);
  if (!report.pieces) return { ...whole(bytes), pieced: false };
  try {
    return { value: runStepsNow(parseJsonPieces(bytes, report.pieces)), pieced: true };
  } catch (error) {
    return { refused: (error as Error).name, pieced: true };
  }
}

/** The same outcome, the value's key order included (deepEqual does not look at order). */
function assertSame(actual: Outcome, expected: Outcome, text: string): void {
  if ('refused' in expected) {
    assert.ok('refused' in actual, `pieces accepted what JSON.parse refuses: ${text}`);
    return;
  }
  assert.ok('value' in actual, `pieces refused what JSON.parse accepts: ${text}`);
  assert.deepEqual(actual.value, expected.value, text);
  assert.equal(JSON.stringify(actual.value), JSON.stringify(expected.value), text);
}

// Values without the keys the scan refuses (`__proto__`, …): those never reach the parser.
const json = fc
  .jsonValue({ maxDepth: 5 })
  .filter((value) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value)));
const spacing = fc.constantFrom(undefined, 0, 1, 2, '\t', ' \n');

describe('parseJsonPieces: the value JSON.parse gives, built piece by piece', () => {
  it('builds every JSON value as JSON.parse does, whatever the cuts and the whitespace', () => {
    fc.assert(
      fc.property(json, spacing, fc.integer({ min: 1, max: 40 }), (value, space, pieceBytes) => {
        const text = JSON.stringify(value, null, space);
        assertSame(inPieces(encoder.encode(text), pieceBytes), whole(encoder.encode(text)), text);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses and accepts what it accepts, for texts one edit away from JSON', () => {
    const edit = fc.tuple(
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.nat(),
      fc.constantFrom(',', ':', '[', ']', '{', '}', '"', ' ', '1', '\\', 'a', '\uFEFF', '\u00e9'),
    );
    let pieced = 0;
    fc.assert(
      fc.property(json, spacing, fc.integer({ min: 1, max: 24 }), edit, (value, space, pieceBytes, [kind, at, put]) => {
        const text = JSON.stringify(value, null, space);
        const where = at % (text.length + 1);
        const edited =
          kind === 'delete'
            ? text.slice(0, where) + text.slice(where + 1)
            : text.slice(0, where) + put + text.slice(kind === 'replace' ? where + 1 : where);
        const bytes = encoder.encode(edited);
        const report: ByteScanReport = {};
        // Bounds (depth, forbidden keys) a broken text may trip are the scan's answer, not the parser's.
        if (runStepsNow(scanJsonBytesSteps(bytes, roomy, report, pieceBytes)) !== undefined) return;
        const outcome = inPieces(bytes, pieceBytes);
        if (outcome.pieced) pieced += 1;
        assertSame(outcome, whole(bytes), edited);
      }),
      { numRuns: 3_000 },
    );
    // The property is about the pieces: most edited texts must have been cut.
    assert.ok(pieced > 1_000, `only ${pieced} of 3,000 texts were parsed in pieces`);
  });

  it('keeps the position of a key given twice and its later value, across a cut and a pieced member', () => {
    const text = '{"a": 1, "b": [1, 2, 3, 4, 5, 6], "c": "x", "a": [7, 8, 9, 10, 11, 12], "b": 0}';
    const outcome = inPieces(encoder.encode(text), 4);
    assert.equal(outcome.pieced, true);
    assertSame(outcome, whole(encoder.encode(text)), text);
  });

  it('skips the text’s own byte order mark once, and refuses one between members as JSON.parse does', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const body = encoder.encode('[1, 2, 3, 4, 5, 6, 7, 8]');
    const withBom = new Uint8Array([...bom, ...body]);
    assertSame(inPieces(withBom, 2), whole(withBom), 'leading BOM');
    const inside = encoder.encode('[1, 2, 3,\uFEFF 4, 5, 6, 7, 8]');
    assertSame(inPieces(inside, 2), whole(inside), 'BOM between members');
    assert.ok('refused' in whole(inside));
  });

  it('refuses bytes that are not UTF-8 inside a piece', () => {
    const bytes = new Uint8Array([...encoder.encode('["aaaa", "bbbb", "'), 0xff, ...encoder.encode('", "dddd"]')]);
    const outcome = inPieces(bytes, 4);
    assert.equal(outcome.pieced, true);
    assert.deepEqual(outcome, { refused: 'TypeError', pieced: true });
  });
});

describe('the door parses a large body in steps of bounded size', () => {
  const layout = (components: number) => ({
    regions: {
      content: {
        components: Array.from({ length: components }, (_, index) => ({
          uuid: `c${index}`,
          component: 'sdc.demo.text',
          props: { body: `Paragraph ${index} with some words in it`, map: { a: index, b: [index, 'x'] } },
        })),
      },
    },
  });
  const hop = (components: number) => ({
    protocol: 'canvas-ai/1',
    request_id: 'pieces-1',
    hop: 1,
    messages: [{ role: 'user', text: 'Hi' }],
    context: { current_layout: layout(components) },
  });

  it('reads a 1.5 MB page with no JSON.parse of more than a few pieces, and builds the request one parse would', async () => {
    const text = JSON.stringify(hop(12_000));
    assert.ok(text.length > 1_500_000, `${text.length} bytes`);
    const original = JSON.parse;
    let largest = 0;
    let calls = 0;
    JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
      largest = Math.max(largest, args[0].length);
      calls += 1;
      return original(...args);
    }) as typeof JSON.parse;
    let read: Awaited<ReturnType<typeof readHopRequest>>;
    try {
      read = await readHopRequest(
        new Request('http://127.0.0.1/api/hop', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        }),
      );
    } finally {
      JSON.parse = original;
    }
    assert.ok(largest <= 3 * 64 * 1024, `one JSON.parse read ${largest} characters`);
    assert.ok(calls >= 20, `${calls} parses`);
    const once = parseHopRequestJson(text);
    assert.ok(once.success);
    assert.deepEqual(read.request, once.data);
  });

  it('calls a body with a stray byte at a seam not UTF-8, as one decode of the whole would', async () => {
    const text = JSON.stringify(hop(12_000));
    const bytes = new Uint8Array([0xa3, ...encoder.encode(text)]);
    await assert.rejects(
      readHopRequest(
        new Request('http://127.0.0.1/api/hop', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bytes,
        }),
      ),
      (error: { code?: string; message?: string }) =>
        error.code === 'invalid_json' && /not UTF-8/.test(error.message ?? ''),
    );
  });

  it('refuses a large body with a broken seam as invalid_json, as a small one', async () => {
    const text = JSON.stringify(hop(12_000));
    // A member of the components array loses its comma: the cut near it must still see the text is not JSON.
    const broken = text.replace('},{"uuid":"c6000"', '}{"uuid":"c6000"');
    assert.notEqual(broken, text);
    await assert.rejects(
      readHopRequest(
        new Request('http://127.0.0.1/api/hop', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: broken,
        }),
      ),
      (error: { code?: string }) => error.code === 'invalid_json',
    );
    assert.equal(scanJsonBytes(encoder.encode(broken), roomy), undefined);
  });
});
