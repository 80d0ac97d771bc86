import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { encodeStreamLine, HopStreamLine, StreamLineDecoder } from '../src/index.js';

describe('the NDJSON framing of a streamed hop (spec §6.1)', () => {
  it('encodes a line as one JSON object and a newline, with newlines inside strings escaped', () => {
    const text = encodeStreamLine({ type: 'text', delta: 'two\nlines' });
    assert.equal(text, '{"type":"text","delta":"two\\nlines"}\n');
    assert.equal(text.indexOf('\n'), text.length - 1);
  });

  it('gives back the lines however the body is cut into chunks', () => {
    const lines = [
      encodeStreamLine({ type: 'text', delta: 'Héllo 🍪' }),
      encodeStreamLine({ type: 'keepalive' }),
      encodeStreamLine({ type: 'text', delta: ' world' }),
    ];
    const body = lines.join('');
    for (const size of [1, 2, 5, 17, body.length]) {
      const decoder = new StreamLineDecoder();
      const got: string[] = [];
      for (let at = 0; at < body.length; at += size) got.push(...decoder.push(body.slice(at, at + size)));
      assert.deepEqual(
        got.map((line) => HopStreamLine.parse(JSON.parse(line))),
        lines.map((line) => JSON.parse(line)),
        `chunks of ${size}`,
      );
      assert.equal(decoder.rest(), '');
    }
  });

  it('holds back a line whose newline has not arrived, and hands it over as the rest at the end', () => {
    const decoder = new StreamLineDecoder();
    assert.deepEqual(decoder.push('{"type":"keepalive"}\n\n{"type":"te'), ['{"type":"keepalive"}']);
    assert.deepEqual(decoder.push('xt","delta":"a"'), []);
    assert.equal(decoder.rest(), '{"type":"text","delta":"a"');
  });
});
