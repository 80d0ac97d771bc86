// Values quoted to the model in notices (src/json-quote.ts): JSON.stringify's text, cut, built only as far as shown.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonPrefix, quoteJson } from '../src/layout/json-quote.js';

describe('jsonPrefix', () => {
  it('is the start of JSON.stringify’s text, for any JSON value and length', () => {
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: 'medium' }), fc.integer({ min: 0, max: 300 }), (value, length) => {
        assert.equal(jsonPrefix(value, length), JSON.stringify(value).slice(0, length));
      }),
      { numRuns: 3_000 },
    );
  });

  it('writes what JSON leaves out or writes as null as JSON does, and escapes as JSON does', () => {
    const values: unknown[] = [
      { a: 1, gone: undefined, f: () => 1 },
      [undefined, () => 1, Symbol('s'), 2],
      { 'quote"d': 'line\nbreak\u2028', '\u0000': '\ud83d\ude00 and a lone \ud83d' },
      Number.NaN,
      -0,
      '😀'.repeat(50),
    ];
    for (const value of values)
      for (const length of [0, 1, 5, 17, 40, 101, 1_000])
        assert.equal(jsonPrefix(value, length), (JSON.stringify(value) ?? '').slice(0, length), JSON.stringify(value));
  });

  it('reads a value no further than its text is needed', () => {
    const items = Array.from({ length: 1_000 }, (_, index) => ({ index }));
    // Past the first few items a read throws: the prefix must not reach it.
    for (let index = 100; index < items.length; index += 1)
      Object.defineProperty(items, index, {
        get() {
          throw new Error(`item ${index} was read`);
        },
      });
    assert.equal(
      jsonPrefix(items, 40),
      JSON.stringify([{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }]).slice(0, 40),
    );
    const long = 'x'.repeat(1_000_000);
    assert.equal(jsonPrefix({ long }, 12), '{"long":"xxx');
  });
});

describe('quoteJson', () => {
  it('quotes a short value whole and cuts a long one with an ellipsis at the limit', () => {
    assert.equal(quoteJson({ title: 'Fresh' }, 120), '{"title":"Fresh"}');
    const cut = quoteJson({ body: 'y'.repeat(500) }, 120);
    assert.equal(cut.length, 120);
    assert.ok(cut.endsWith('…'));
    assert.equal(cut, `${JSON.stringify({ body: 'y'.repeat(500) }).slice(0, 119)}…`);
    assert.equal(quoteJson('x'.repeat(118), 120), JSON.stringify('x'.repeat(118)));
  });
});
