// The JSON bounds of spec §13 are held before the work they bound is spent: scanJson refuses a
// huge array from its length, the byte scan refuses a body before JSON.parse builds it, a JSON body has its own
// small limit, a multipart body its part limits, and the door pauses between its steps.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { LIMITS } from '../src/index.js';
import { scanJsonBytes } from '../src/parse/scan-json-bytes.js';
import { type JsonScanLimits, scanJson } from '../src/parse/scan-json.js';
import { parseHopRequestJson, readHopRequest } from '../src/server.js';

const encoder = new TextEncoder();
const hop1 = (extra: unknown = {}) => ({
  protocol: 'canvas-ai/1',
  request_id: 'bounds-1',
  hop: 1,
  messages: [{ role: 'user', text: 'Hi' }],
  context: { current_layout: { regions: {} }, extra },
});
const jsonRequest = (body: BodyInit) =>
  new Request('http://127.0.0.1/api/hop', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** Counts the calls of `JSON.parse` on a text of more than 1,000 characters (a body, not fetch's own) while `run` runs. */
async function countingJsonParse<T>(run: () => Promise<T>): Promise<{ calls: number; result: T | Error }> {
  const original = JSON.parse;
  let calls = 0;
  JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
    if (args[0].length > 1_000) calls += 1;
    return original(...args);
  }) as typeof JSON.parse;
  try {
    const result = await run();
    return { calls, result };
  } catch (error) {
    return { calls, result: error as Error };
  } finally {
    JSON.parse = original;
  }
}

describe('scanJson: an array is refused from its length, not by visiting it', () => {
  it('refuses a sparse array of a billion elements at once (Object.keys of it would be empty, or endless)', () => {
    const huge: unknown[] = [];
    huge.length = 1_000_000_000;
    const problem = scanJson({ context: { extra: huge } }, { maxDepth: 64, maxValues: 100 });
    assert.deepEqual(problem, { kind: 'too_many_values', path: 'context.extra.97', limit: 100 });
  });

  it('names the same element as counting one by one would', () => {
    const limits: JsonScanLimits = { maxDepth: 64, maxValues: 1_000, roomyPath: 'a.b', maxValuesElsewhere: 10 };
    assert.deepEqual(scanJson({ x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }, limits), {
      kind: 'too_many_values',
      path: 'x.8',
      limit: 10,
    });
    assert.equal(scanJson({ a: { b: Array.from({ length: 900 }, () => 0) } }, limits), undefined);
  });

  it('refuses large objects (maps) that hold more keys in all than allowed, and lets small ones be', () => {
    const wide = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
    const limits: JsonScanLimits = { maxDepth: 64, mapThresholdKeys: 5, maxMapKeys: 20 };
    // In document order: the second map is where the sum passes the limit.
    assert.deepEqual(scanJson({ page: wide(11), extra: wide(11) }, limits), {
      kind: 'too_many_map_keys',
      path: 'extra',
      limit: 20,
    });
    assert.equal(scanJson({ a: wide(11), b: wide(9) }, limits), undefined);
    assert.equal(
      scanJson(
        Array.from({ length: 50 }, () => wide(5)),
        limits,
      ),
      undefined,
      'small objects are not maps',
    );
  });
});

describe('scanJsonBytes: the bounds on the bytes, before they are decoded', () => {
  const limits: JsonScanLimits = {
    maxDepth: 6,
    maxValues: 60,
    roomyPath: 'context.current_layout',
    maxValuesElsewhere: 25,
    mapThresholdKeys: 4,
    maxMapKeys: 8,
  };
  const scanBytes = (value: unknown) => scanJsonBytes(encoder.encode(JSON.stringify(value, null, 1)), limits);

  it('finds what scanJson finds in the decoded value: depth, both budgets, the keys of maps', () => {
    const cases: unknown[] = [
      { a: [[[[[[1]]]]]] },
      { extra: Array.from({ length: 30 }, (_, i) => i) },
      { context: { current_layout: { list: Array.from({ length: 50 }, (_, i) => `s${i}`) } } },
      { context: { current_layout: { list: Array.from({ length: 70 }, () => null) } } },
      { page: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k"${i}\\`, true])) },
      { a: { b: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, i])) } },
      { 'we\\"ird': [{ é: [1, 2, { x: 'a"b' }] }], n: -1.5e3, t: true, f: false, z: null },
    ];
    for (const value of cases) {
      assert.deepEqual(scanBytes(value), scanJson(value, limits), JSON.stringify(value).slice(0, 80));
    }
  });

  it('agrees with scanJson on whether random values pass (seeded, 500 values)', () => {
    let seed = 15;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 6 || pick < 0.3) return [0, 'x"\\y', true, null, -2.5, ''][Math.floor(random() * 6)];
      const size = Math.floor(random() * 5);
      if (pick < 0.65) return Array.from({ length: size }, () => value(depth + 1));
      const keys = ['context', 'current_layout', 'a', 'b"', 'é', 'c\\d', 'e', 'f', 'g', 'h', 'i', 'j'];
      return Object.fromEntries(Array.from({ length: size }, (_, i) => [keys[i]!, value(depth + 1)]));
    };
    let refused = 0;
    for (let run = 0; run < 500; run += 1) {
      const sample = value(0);
      const bytes = scanBytes(sample);
      const decoded = scanJson(sample, limits);
      assert.equal(bytes === undefined, decoded === undefined, JSON.stringify(sample));
      if (decoded) refused += 1;
    }
    assert.ok(refused > 50 && refused < 450, `${refused} of 500 refused: the samples test both outcomes`);
  });

  it('finds forbidden keys as the decoded scan does, escaped ones included', () => {
    const limits: JsonScanLimits = { maxDepth: 64 };
    for (const text of [
      '{"a":{"__proto__":{"x":1}}}',
      '{"page":[{"ok":1},{"constructor":2}]}',
      '{"b":{"\\u005f_proto__":1}}',
      '{"prototypes":1,"proto":2,"c\\u006fnstructor":3}',
    ]) {
      assert.deepEqual(scanJsonBytes(encoder.encode(text), limits), scanJson(JSON.parse(text), limits), text);
    }
    assert.equal(scanJsonBytes(encoder.encode('{"protocol":"__proto__","constructors":[]}'), limits), undefined);
  });

  it('skips a UTF-8 byte order mark and leaves what is not JSON to the parser', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('{"a":1}')]);
    assert.equal(scanJsonBytes(bom, { maxDepth: 1, maxValues: 2 }), undefined);
    assert.equal(scanJsonBytes(encoder.encode('{"a": [1, 2'), limits), undefined);
    assert.equal(scanJsonBytes(encoder.encode('"unterminated'), limits), undefined);
  });
});

describe('readHopRequest holds the bounds before it spends the work', () => {
  it(`refuses a body of more than ${LIMITS.maxJsonValuesOutsideLayout} values outside the layout without calling JSON.parse`, async () => {
    const body = JSON.stringify(hop1(Array.from({ length: LIMITS.maxJsonValuesOutsideLayout + 10 }, () => 0)));
    const { calls, result } = await countingJsonParse(() => readHopRequest(jsonRequest(body)));
    assert.ok(result instanceof Error);
    assert.equal((result as { code?: string }).code, 'invalid_request');
    // Counted in document order (the decoded scan's order differs, so its element may be a few later).
    assert.match((result as { field?: string }).field ?? '', /^context\.extra\.499\d\d$/);
    assert.equal(parseHopRequestJson(body).success, false, 'the decoded scan refuses it too');
    assert.equal(calls, 0, 'the body was never decoded');
  });

  it(`refuses maps of more than ${LIMITS.maxMapKeys} keys in all without calling JSON.parse`, async () => {
    const map = Object.fromEntries(Array.from({ length: LIMITS.maxMapKeys + 1 }, (_, i) => [`k${i}`, 0]));
    const layout = { regions: { content: { components: [{ uuid: 'm1', component: 'x', props: { map } }] } } };
    const body = JSON.stringify({ ...hop1(), context: { current_layout: layout } });
    const { calls, result } = await countingJsonParse(() => readHopRequest(jsonRequest(body)));
    assert.equal((result as { code?: string }).code, 'invalid_request');
    assert.equal((result as { field?: string }).field, 'context.current_layout.regions.content.components.0.props.map');
    assert.match((result as Error).message, /large objects hold more than 100000 keys in all/);
    assert.equal(calls, 0);
  });

  it(`answers a JSON body over ${LIMITS.maxJsonBodyBytes} bytes with 413, far below the multipart limit`, async () => {
    assert.ok(LIMITS.maxJsonBodyBytes * 3 < LIMITS.maxBodyBytes);
    const body = JSON.stringify(hop1('x'.repeat(LIMITS.maxJsonBodyBytes)));
    await assert.rejects(readHopRequest(jsonRequest(body)), { code: 'payload_too_large' });
    const within = JSON.stringify(hop1('x'.repeat(LIMITS.maxJsonBodyBytes - 1_000)));
    assert.equal((await readHopRequest(jsonRequest(within))).request.request_id, 'bounds-1');
  });

  it('pauses between the steps of a large body, so other requests run in between; a small one runs at once', async () => {
    let pauses = 0;
    const pause = async () => {
      pauses += 1;
    };
    await readHopRequest(jsonRequest(JSON.stringify(hop1('x'.repeat(300_000)))), { pause });
    assert.ok(pauses >= 4, `${pauses} pauses`);
    pauses = 0;
    const small = await readHopRequest(jsonRequest(JSON.stringify(hop1())), { pause });
    assert.equal(pauses, 0);
    assert.ok(small.bytes > 0 && small.bytes < 1_000);
  });
});

describe('G3: a layout that misses the fast path is checked node by node, in steps', () => {
  /** 6,000 components of 19 values each; `odd`: one unknown key on the last node, so the fast path cannot take it. */
  const page = (odd: boolean) => {
    const components = Array.from({ length: 6_000 }, (_, index) => ({
      uuid: `n-${index}`,
      component: 'sdc.demo.card',
      props: Object.fromEntries(Array.from({ length: 18 }, (_, prop) => [`p${prop}`, prop])),
    }));
    if (odd) Object.assign(components.at(-1)!, { label: 'host data' });
    return JSON.stringify({ ...hop1(), context: { current_layout: { regions: { content: { components } } } } });
  };
  const steps = async (body: string) => {
    let pauses = 0;
    const pause = async () => {
      pauses += 1;
    };
    const { request } = await readHopRequest(jsonRequest(body), { pause });
    return { pauses, request };
  };

  it('takes many more steps than the fast path for the same page, and strips the unknown key as the schema does', async () => {
    const plain = await steps(page(false));
    const odd = await steps(page(true));
    assert.ok(odd.pauses >= plain.pauses + 4, `${odd.pauses} steps, ${plain.pauses} on the fast path`);
    const last = odd.request.context.current_layout.regions.content?.components.at(-1);
    assert.equal(last?.uuid, 'n-5999');
    assert.equal(last !== undefined && 'label' in last, false);
    assert.deepEqual(odd.request, plain.request);
  });
});

describe('G8: numbers too large for a double are refused at the door, however short', () => {
  const withSize = (literal: string) =>
    `{"protocol":"canvas-ai/1","request_id":"bounds-1","hop":1,"messages":[{"role":"user","text":"Hi"}],` +
    `"context":{"current_layout":{"regions":{"content":{"components":[{"uuid":"t1","component":"sdc.demo.text",` +
    `"props":{"size":${literal}}}]}}}}}`;
  const refusal = async (literal: string) => {
    const error = await readHopRequest(jsonRequest(withSize(literal))).then(
      () => assert.fail(`${literal} was accepted`),
      (rejected: unknown) => rejected as { code?: string; field?: string; message?: string },
    );
    return { code: error.code, field: error.field, message: error.message };
  };

  it('refuses 1e999 and -1e999 in a layout prop with the error of an over-long literal', async () => {
    const long = await refusal(`1${'0'.repeat(400)}`);
    assert.equal(long.code, 'invalid_request');
    assert.equal(long.field, 'context.current_layout.regions.content.components.0.props.size');
    for (const literal of ['1e999', '-1e999', '1E400', '-2e+309'])
      assert.deepEqual(await refusal(literal), long, literal);
  });

  it('still takes exponents that fit, and true, false and null, on the fast path', async () => {
    for (const literal of ['1e300', '-1e-999', '2E+3', 'true', 'false', 'null']) {
      const { request } = await readHopRequest(jsonRequest(withSize(literal)));
      const [node] = request.context.current_layout.regions.content?.components ?? [];
      assert.deepEqual(node?.props.size, JSON.parse(literal), literal);
    }
  });
});

describe('readHopRequest: a multipart body is bounded before it is split', () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
  const multipart = (body: string, boundary = 'XyZ') =>
    new Request('http://127.0.0.1/api/hop', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
  const part = (name: string, content: string, headers = '') =>
    `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${content}\r\n`;

  it(`refuses more than ${LIMITS.maxMultipartParts} parts with 400, whatever they are named`, async () => {
    const parts = Array.from({ length: LIMITS.maxMultipartParts }, (_, i) => part(`ignored${i}`, 'x')).join('');
    const body = `${part('request', JSON.stringify(hop1()))}${parts}--XyZ--\r\n`;
    await assert.rejects(readHopRequest(multipart(body)), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, /more than 16 parts/);
      return true;
    });
    const few = `${part('request', JSON.stringify(hop1()))}${part('ignored', 'x')}--XyZ--\r\n`;
    assert.equal((await readHopRequest(multipart(few))).request.request_id, 'bounds-1');
  });

  it(`refuses a part whose headers pass ${LIMITS.maxPartHeaderBytes} bytes with 400`, async () => {
    const many = Array.from({ length: 2_000 }, (_, i) => `X-Filler-${i}: y`).join('\r\n');
    const body = `${part('request', JSON.stringify(hop1()), `${many}\r\n`)}--XyZ--\r\n`;
    await assert.rejects(readHopRequest(multipart(body)), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, /more than 8192 bytes of headers/);
      return true;
    });
  });

  it(`answers a request part over ${LIMITS.maxJsonBodyBytes} bytes with 413 naming it`, async () => {
    const body = `${part('request', JSON.stringify(hop1('x'.repeat(LIMITS.maxJsonBodyBytes))))}--XyZ--\r\n`;
    await assert.rejects(readHopRequest(multipart(body)), { code: 'payload_too_large', field: 'request' });
  });

  it('reads what browsers send: a file part with a quoted name, binary bytes that hold CR LF, a closing boundary', async () => {
    const image = new Uint8Array([...PNG, 0x0d, 0x0a, 0x2d, 0x2d, 0x58, 0x0d, 0x0a]);
    const form = new FormData();
    form.append('request', JSON.stringify(hop1()));
    form.append('attachments', new File([image], 'my "photo".png', { type: 'image/png' }));
    const door = await readHopRequest(new Request('http://127.0.0.1/api/hop', { method: 'POST', body: form }));
    assert.deepEqual([...door.attachments[0]!.bytes], [...image]);
    assert.equal(door.attachments[0]!.mediaType, 'image/png');
  });

  it('refuses a body without its closing boundary, or with a boundary no longer than RFC 2046 allows', async () => {
    await assert.rejects(readHopRequest(multipart(part('request', '{}'))), { code: 'invalid_request' });
    await assert.rejects(readHopRequest(multipart('x', 'b'.repeat(71))), { code: 'invalid_request' });
  });
});
