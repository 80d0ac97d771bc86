import { LIMITS } from '@canvas-ai/protocol';
import fc from 'fast-check';
import { firstHop, type JsonBody } from './harness.js';

/** A hop request body as sent over HTTP: the bytes (or text) and the Content-Type that goes with them. */
export interface FuzzBody {
  kind: string;
  contentType: string;
  body: string | Uint8Array<ArrayBuffer>;
}

/** The body limit the fuzzed app is created with: small, so "too large" is cheap to produce. */
export const FUZZ_MAX_BODY = 64 * 1024;

const OFFERED_AGENTS = ['qa', 'page_builder', 'copy_editor'];
const json = (kind: string, value: unknown): FuzzBody => ({
  kind,
  contentType: 'application/json',
  body: JSON.stringify(value),
});
/** A valid hop 1 to break. */
const base = () => firstHop('fuzz-turn', 'Hello there') as Record<string, JsonBody>;

/** Characters that trip up naive code: lone surrogates, bidi overrides, zero-width, NUL, BOM, non-characters. */
export const oddUnicode = fc.oneof(
  fc.constantFrom(
    '\uD800',
    '\uDFFF',
    'a\uD83Db',
    '\u202Eevil',
    '\u200B',
    '\uFEFF',
    '\u0000',
    '\uFFFF',
    'e\u0301',
    '🍪',
    '\u{10FFFF}',
    'ǅ',
    'İ',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((text) => /[^\x20-\x7e]/.test(text)),
);

// Finite doubles only: JSON.stringify turns NaN and ±Infinity into null, which is a valid selected_component.
const notString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const notObject = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
);
const notArray = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const notHop = fc.oneof(
  fc.double().filter((n) => !Number.isInteger(n)),
  fc.integer({ max: 0 }),
  fc.integer({ min: LIMITS.maxHopNumber + 1 }),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
);

/** One field of a valid request replaced by a value of a wrong type (or removed when required). */
export const wrongTypes: fc.Arbitrary<FuzzBody> = fc
  .oneof(
    fc.tuple(
      fc.constant(['protocol']),
      fc.jsonValue().filter((value) => value !== 'canvas-ai/1'),
    ),
    fc.tuple(fc.constant(['request_id']), fc.oneof(notString, oddUnicode)),
    fc.tuple(fc.constant(['hop']), notHop),
    fc.tuple(fc.constant(['messages']), fc.oneof(notArray, fc.constant([]))),
    fc.tuple(
      fc.constant(['messages', 0, 'role']),
      fc.jsonValue().filter((value) => value !== 'user'),
    ),
    fc.tuple(fc.constant(['messages', 0, 'text']), notString),
    fc.tuple(
      fc.constant(['agent']),
      fc.oneof(notString, fc.string(), oddUnicode).filter((value) => !OFFERED_AGENTS.includes(value as string)),
    ),
    fc.tuple(fc.constant(['conversation_id']), fc.oneof(notString, oddUnicode)),
    fc.tuple(fc.constant(['context']), notObject),
    fc.tuple(fc.constant(['context', 'current_layout']), notObject),
    fc.tuple(fc.constant(['context', 'current_layout', 'regions']), notObject),
    fc.tuple(
      fc.constant(['context', 'selected_component']),
      fc.oneof(notString, oddUnicode).filter((value) => JSON.stringify(value) !== 'null'),
    ),
    fc.tuple(fc.constant(['context', 'page']), notObject),
    fc.tuple(fc.constant(['apply_results']), notArray),
    fc.tuple(
      fc.constantFrom(['protocol'], ['request_id'], ['hop'], ['messages'], ['context'], ['context', 'current_layout']),
      fc.constant(undefined),
    ),
  )
  .map(([path, value]) => {
    const request = base();
    let target = request;
    for (const step of path.slice(0, -1)) target = target[step as string];
    target[path.at(-1) as string] = value;
    return json(`wrong type at ${path.join('.')}`, request);
  });

/** Any JSON value at all as the body (never a whole valid request). */
export const anyJson: fc.Arbitrary<FuzzBody> = fc
  .jsonValue({ maxDepth: 4 })
  .map((value) => json('any JSON value', value));

/** Over the body limit (413), or under it but past a count or length limit (400). */
export const hugeJson: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc
    .integer({ min: 1, max: FUZZ_MAX_BODY })
    .map((extra) => json('over the body limit', { ...base(), padding: 'x'.repeat(FUZZ_MAX_BODY + extra) })),
  fc.integer({ min: LIMITS.messageChars + 1, max: LIMITS.messageChars * 2 }).map((length) => {
    const request = base();
    request.messages[0].text = 'y'.repeat(length);
    return json('a message too long', request);
  }),
  fc.integer({ min: LIMITS.maxMessages + 1, max: LIMITS.maxMessages + 500 }).map((count) => {
    const request = base();
    request.messages = Array.from({ length: count }, () => ({ role: 'user', text: 'hi' }));
    return json('too many messages', request);
  }),
);

/** Nesting past the depth limit anywhere in the request, as arrays or objects. */
export const deepJson: fc.Arbitrary<FuzzBody> = fc
  .record({
    depth: fc.integer({ min: LIMITS.maxJsonDepth + 1, max: 9_000 }),
    objects: fc.boolean(),
    where: fc.constantFrom('context.extra', 'context.page.title', 'unknown_field', 'messages.0.meta'),
  })
  .map(({ depth, objects, where }) => {
    const nested = objects
      ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
      : `${'['.repeat(depth)}${']'.repeat(depth)}`;
    return { kind: `nested ${depth} deep at ${where}`, contentType: 'application/json', body: placeRaw(where, nested) };
  });

/** A prototype-polluting key somewhere in the request. */
export const pollutingKeys: fc.Arbitrary<FuzzBody> = fc
  .record({
    key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
    where: fc.constantFrom(
      '(root)',
      'context',
      'context.extra',
      'context.page',
      'messages.0',
      'context.current_layout.regions',
    ),
    value: fc.oneof(fc.constant({ polluted: true }), fc.jsonValue({ maxDepth: 2 })),
  })
  .map(({ key, where, value }) => {
    const request = base();
    request.context.page = {};
    request.context.extra = {};
    const target =
      where === '(root)' ? request : where.split('.').reduce((node: JsonBody, step) => node[step], request);
    target.__fuzz_key__ = value;
    const body = JSON.stringify(request).replace('"__fuzz_key__"', JSON.stringify(key));
    return { kind: `"${key}" at ${where}`, contentType: 'application/json', body };
  });

/** Odd unicode where only plain ids are allowed, and bytes that are not UTF-8 at all. */
export const oddUnicodeBodies: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc.tuple(fc.constantFrom('request_id', 'agent', 'protocol', 'region', 'role'), oddUnicode).map(([where, text]) => {
    const request = base();
    if (where === 'region') request.context.current_layout.regions = { [text]: { components: [] } };
    else if (where === 'role') request.messages[0].role = text;
    else if (where === 'protocol') request.protocol = `canvas-ai/1${text}`;
    else request[where] = text;
    return json(`odd unicode in ${where}`, request);
  }),
  fc
    .tuple(
      fc.constantFrom([0xff], [0xc0, 0xaf], [0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]),
      fc.nat(),
    )
    .map(([bad, at]) => {
      const bytes = new TextEncoder().encode(JSON.stringify(base()));
      const text = bytes.indexOf(0x48); // the "H" of "Hello there": inside a string, so only the encoding is wrong
      const cut = text + (at % 11);
      const body = new Uint8Array([...bytes.subarray(0, cut), ...bad, ...bytes.subarray(cut)]);
      return {
        kind: `invalid UTF-8 ${bad.map((byte) => byte.toString(16)).join(' ')}`,
        contentType: 'application/json',
        body,
      };
    }),
);

const IMAGE_MAGIC = [
  [0x89, 0x50],
  [0xff, 0xd8],
  [0x47, 0x49, 0x46],
  [0x52, 0x49, 0x46, 0x46],
];
const notAnImage = fc
  .uint8Array({ minLength: 0, maxLength: 64 })
  .filter((bytes) => !IMAGE_MAGIC.some((magic) => magic.every((byte, i) => bytes[i] === byte)));
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Multipart bodies that are broken in one way each. */
export const brokenMultipart: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc
    .tuple(fc.uint8Array({ maxLength: 512 }), fc.stringMatching(/^[A-Za-z0-9'()+_,-./:=?]{1,70}$/))
    .map(([bytes, boundary]) => ({
      kind: 'random bytes',
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: new Uint8Array(bytes),
    })),
  fc.constant(
    multipart('no boundary parameter', [{ name: 'request', text: JSON.stringify(base()) }], { dropBoundary: true }),
  ),
  fc.string().map((junk) => multipart('no request part', [{ name: 'note', text: junk }])),
  fc
    .string()
    .filter((text) => !isJson(text))
    .map((text) => multipart('request part not JSON', [{ name: 'request', text }])),
  wrongTypes.map((broken) =>
    multipart(`request part with a ${broken.kind}`, [{ name: 'request', text: String(broken.body) }]),
  ),
  notAnImage.map((bytes) =>
    multipart('an attachment that is no image', [
      { name: 'request', text: JSON.stringify(base()) },
      { name: 'attachments', file: bytes },
    ]),
  ),
  fc
    .integer({ min: LIMITS.maxAttachments + 1, max: LIMITS.maxAttachments + 4 })
    .map((count) =>
      multipart('too many attachments', [
        { name: 'request', text: JSON.stringify(base()) },
        ...Array.from({ length: count }, () => ({ name: 'attachments', file: new Uint8Array(PNG_MAGIC) })),
      ]),
    ),
  fc.constant(
    multipart('attachments on hop 2', [
      { name: 'request', text: JSON.stringify({ ...base(), hop: 2 }) },
      { name: 'attachments', file: new Uint8Array(PNG_MAGIC) },
    ]),
  ),
  fc.nat().map((at) => {
    // Cut inside the request part, so what is left cannot be a whole valid request.
    const whole = multipart('truncated', [{ name: 'request', text: JSON.stringify(base()) }]);
    const bytes = whole.body as Uint8Array<ArrayBuffer>;
    const start = new TextDecoder().decode(bytes).indexOf('{');
    const end = new TextDecoder().decode(bytes).lastIndexOf('}');
    return { ...whole, kind: 'truncated inside the request part', body: bytes.slice(0, start + (at % (end - start))) };
  }),
);

/** A Content-Type that is neither JSON nor multipart (415). */
export const wrongContentType: fc.Arbitrary<FuzzBody> = fc
  .oneof(
    fc.constantFrom(
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'multipart/mixed',
      'application/xml',
    ),
    fc.string({ maxLength: 40 }),
  )
  .filter((type) => !['application/json', 'multipart/form-data'].includes(type.split(';')[0]!.trim().toLowerCase()))
  .map((contentType) => ({
    kind: `content type ${JSON.stringify(contentType)}`,
    contentType,
    body: JSON.stringify(base()),
  }));

/** Every kind of bad hop request above. */
export const badHopRequest = fc.oneof(
  wrongTypes,
  anyJson,
  hugeJson,
  deepJson,
  pollutingKeys,
  oddUnicodeBodies,
  brokenMultipart,
  wrongContentType,
);

/** The JSON of a valid hop 1 with `raw` JSON text placed at `where` (a dotted path; the last step is created). */
function placeRaw(where: string, raw: string): string {
  const request = base();
  const steps = where.split('.');
  const parent = steps.slice(0, -1).reduce((node: JsonBody, step) => (node[step] ??= {}), request);
  parent[steps.at(-1)!] = '__fuzz_raw__';
  return JSON.stringify(request).replace('"__fuzz_raw__"', raw);
}

function multipart(
  kind: string,
  parts: Array<{ name: string; text?: string; file?: Uint8Array }>,
  options: { dropBoundary?: boolean } = {},
): FuzzBody {
  const boundary = 'fuzz-boundary-7MA4YWxkTrZu0gW';
  const encoder = new TextEncoder();
  const chunks: number[] = [];
  for (const part of parts) {
    const disposition = part.file
      ? `form-data; name="${part.name}"; filename="file.bin"`
      : `form-data; name="${part.name}"`;
    const type = part.file ? 'Content-Type: application/octet-stream\r\n' : '';
    chunks.push(...encoder.encode(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(...(part.file ?? encoder.encode(part.text ?? '')), ...encoder.encode('\r\n'));
  }
  chunks.push(...encoder.encode(`--${boundary}--\r\n`));
  return {
    kind,
    contentType: options.dropBoundary ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`,
    body: new Uint8Array(chunks),
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
