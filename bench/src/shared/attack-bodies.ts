import { createHash } from 'node:crypto';
import { LIMITS, PROTOCOL_VERSION } from '@canvas-ai/protocol';
import { benchLayout } from './layout.js';

/** One request body a hostile (or merely heavy) client may send, each as large as the limits let it be. */
export interface AttackBody {
  /** A short id for the table. */
  name: string;
  /** What it is, for the README's readers. */
  description: string;
  contentType: string;
  body: Uint8Array;
  /** Sent first in the same session, unmeasured: the hop 1 that makes `body` a later hop of a stored turn. */
  setup?: AttackBody;
  /** Copies in flight at once, when not the group's `concurrent` (the review's G2 and G3 cases ran four). */
  concurrent?: number;
}

const encoder = new TextEncoder();
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** The image-attachment scenario's message: the scripted model then parks a call, so the turn (and its attachments) is stored. */
const PHOTO_MESSAGE = 'Put this photo of our cookie in a hero at the top of the page';

/** A hop 1 request as JSON text, with `context` as given (the rest as small as a hop 1 can be). */
function hop1(requestId: string, context: string, text = 'How do I get the assistant to change my page?'): string {
  return (
    `{"protocol":"${PROTOCOL_VERSION}","request_id":"${requestId}","hop":1,` +
    `"messages":[{"role":"user","text":${JSON.stringify(text)}}],"context":${context}}`
  );
}

/** `count` comma-separated copies of `item`, built by doubling (an 8 MB string in a few steps). */
function repeatJoined(item: string, count: number): string {
  if (count <= 0) return '';
  return `${item},`.repeat(count - 1) + item;
}

/** Zero-padded base-36 keys: `width` characters each, all distinct. */
function keys(count: number, width: number): string[] {
  return Array.from({ length: count }, (_, index) => index.toString(36).padStart(width, '0'));
}

function multipart(boundary: string, parts: Array<{ headers: string; body: Uint8Array }>): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(encoder.encode(`--${boundary}\r\n${part.headers}\r\n\r\n`), part.body, encoder.encode('\r\n'));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}

const requestPart = (json: string) => ({
  headers: 'Content-Disposition: form-data; name="request"',
  body: encoder.encode(json),
});

/**
 * Bodies that cost a server the most per byte (a huge array, a huge map, deep nesting, many multipart parts …), each
 * at the size the limits allow, scaled by `scale` (1 for the full run; the tiny run uses a fraction). `requestId`
 * names each body's turn.
 */
export function attackBodies(scale: number, requestId: string): AttackBody[] {
  const jsonBytes = Math.floor(LIMITS.maxJsonBodyBytes * scale) - 1_000;
  const bodyBytes = Math.floor(LIMITS.maxBodyBytes * scale) - 4_096;
  const json = (name: string, description: string, text: string): AttackBody => ({
    name,
    description,
    contentType: 'application/json',
    body: encoder.encode(text),
  });
  const id = (name: string) => `${requestId}-${name}`;

  // The most JSON values the layout may hold, as zeros in one prop; and as objects (what makes JSON.parse slowest per
  // value): as many map keys as allowed in maps of 1,000 keys, the rest in objects just below the map threshold.
  // Both are valid requests that run a hop.
  const values = Math.floor(LIMITS.maxJsonValues * scale) - 40;
  const zerosLayout = `{"current_layout":{"regions":{"content":{"components":[{"uuid":"z1","component":"sdc.demo.text","props":{"body":"x","z":[${repeatJoined('0', values)}]}}]}}}}`;
  const objectOf = (count: number, width: number) =>
    `{${keys(count, width)
      .map((key) => `"${key}":0`)
      .join(',')}}`;
  const maps = Math.floor((LIMITS.maxMapKeys * scale) / 1_000);
  const smallKeys = LIMITS.mapThresholdKeys;
  const small = Math.floor((values - maps * 1_001) / (smallKeys + 1));
  const objectsLayout = `{"current_layout":{"regions":{"content":{"components":[{"uuid":"w1","component":"sdc.demo.text","props":{"body":"x","maps":[${repeatJoined(objectOf(1_000, 2), maps)}],"objects":[${repeatJoined(objectOf(smallKeys, 2), small)}]}}]}}}}`;
  const fillerString = 'x'.repeat(jsonBytes - 300);
  const components = Math.floor(LIMITS.maxLayoutComponents * scale);

  const attachment = new Uint8Array(Math.floor(LIMITS.maxAttachmentBytes * scale));
  attachment.set(PNG_SIGNATURE);
  const photoRequest = hop1(
    id('attachments'),
    '{"current_layout":{"regions":{"content":{"components":[]}}}}',
    PHOTO_MESSAGE,
  );
  const tinyParts = Math.floor(bodyBytes / 60);
  const headerLines = Math.floor(bodyBytes / 12);
  const hostileBoundary = `${'a'.repeat(69)}b`;
  const review = reviewBodies(scale, id);

  return [
    json(
      'extra-zeros',
      `context.extra: an array of zeros filling the JSON body limit (${Math.floor(jsonBytes / 2).toLocaleString('en-US')} values)`,
      hop1(
        id('extra-zeros'),
        `{"current_layout":{"regions":{}},"extra":[${repeatJoined('0', Math.floor(jsonBytes / 2) - 60)}]}`,
      ),
    ),
    json(
      'extra-keys',
      'context.extra: one object with as many keys as the JSON body limit holds',
      hop1(
        id('extra-keys'),
        `{"current_layout":{"regions":{}},"extra":{${keys(
          Math.max(Math.floor(jsonBytes / 10), LIMITS.maxJsonValuesOutsideLayout + 1_000),
          4,
        )
          .map((key) => `"${key}":0`)
          .join(',')}}}`,
      ),
    ),
    json(
      'extra-string',
      'context.extra: one string as long as the JSON body limit allows',
      hop1(id('extra-string'), `{"current_layout":{"regions":{}},"extra":"${fillerString}"}`),
    ),
    json(
      'deep-nesting',
      'context.extra: arrays nested as deep as the JSON body limit allows',
      hop1(
        id('deep-nesting'),
        `{"current_layout":{"regions":{}},"extra":${'['.repeat(jsonBytes / 2 - 100)}${']'.repeat(jsonBytes / 2 - 100)}}`,
      ),
    ),
    json(
      'layout-zeros',
      `the layout's value limit (${values.toLocaleString('en-US')}) as zeros in one prop: a valid request`,
      hop1(id('layout-zeros'), zerosLayout),
    ),
    json(
      'layout-objects',
      `the layout's value limit as objects: ${maps} maps of 1,000 keys, then ${small.toLocaleString('en-US')} objects of ${smallKeys} keys: a valid request`,
      hop1(id('layout-objects'), objectsLayout),
    ),
    json(
      'layout-components',
      `a page of ${components.toLocaleString('en-US')} components (the layout limit): a valid request`,
      hop1(id('layout-components'), JSON.stringify({ current_layout: benchLayout(components) })),
    ),
    {
      name: 'multipart-attachments',
      description: `hop 1 with ${LIMITS.maxAttachments} PNG attachments of ${attachment.byteLength.toLocaleString('en-US')} bytes, whose turn is stored`,
      contentType: 'multipart/form-data; boundary=bench',
      body: multipart('bench', [
        requestPart(photoRequest),
        ...Array.from({ length: LIMITS.maxAttachments }, (_, index) => ({
          headers: `Content-Disposition: form-data; name="attachments"; filename="p${index}.png"\r\nContent-Type: image/png`,
          body: attachment,
        })),
      ]),
    },
    {
      name: 'multipart-parts',
      description: `${tinyParts.toLocaleString('en-US')} tiny parts filling the multipart body limit`,
      contentType: 'multipart/form-data; boundary=bench',
      body: multipart('bench', [
        requestPart(hop1(id('multipart-parts'), '{"current_layout":{"regions":{}}}')),
        ...Array.from({ length: tinyParts }, () => ({
          headers: 'Content-Disposition: form-data; name="x"',
          body: new Uint8Array(1),
        })),
      ]),
    },
    {
      name: 'multipart-header-lines',
      description: `one part with ${headerLines.toLocaleString('en-US')} header lines`,
      contentType: 'multipart/form-data; boundary=bench',
      body: multipart('bench', [
        {
          headers: `Content-Disposition: form-data; name="request"\r\n${'X-A: b\r\n'.repeat(headerLines)}X-A: b`,
          body: encoder.encode(hop1(id('multipart-header-lines'), '{"current_layout":{"regions":{}}}')),
        },
      ]),
    },
    {
      name: 'multipart-search',
      description:
        "one part of bytes that nearly match a hostile boundary everywhere (the delimiter search's worst case)",
      contentType: `multipart/form-data; boundary=${hostileBoundary}`,
      body: multipart(hostileBoundary, [
        requestPart(hop1(id('multipart-search'), '{"current_layout":{"regions":{}}}')),
        {
          headers: 'Content-Disposition: form-data; name="attachments"; filename="a.png"',
          body: new Uint8Array(bodyBytes - 2_000).fill(0x61),
        },
      ]),
    },
    ...review,
  ];
}

/** The 128-character uuid of page component `n` (SHA-512 hex: distinct, like random ids). */
function longUuid(n: number): string {
  return createHash('sha512').update(String(n)).digest('hex');
}

/**
 * The bodies of the second security review that stalled the server within every limit, four at once as the
 * review sent them: G3's page of maps at the map-key budget and its page that misses the layout's fast path, and G2's
 * "remove the selected component" on a 20,000-component page of 128-character uuids without the selected one.
 */
function reviewBodies(scale: number, id: (name: string) => string): AttackBody[] {
  const json = (name: string, description: string, text: string, extra: Partial<AttackBody> = {}): AttackBody => ({
    name,
    description,
    contentType: 'application/json',
    body: encoder.encode(text),
    concurrent: 4,
    ...extra,
  });
  // G3 mapkeys: one map of just over the threshold per component, as many as the map-key budget holds.
  const mapKeys = LIMITS.mapThresholdKeys + 1;
  const mapComponents = Math.max(1, Math.floor((LIMITS.maxMapKeys / mapKeys) * scale));
  const map = `{${Array.from({ length: mapKeys }, (_, k) => `"key_${k}":"${'v'.repeat(40)}"`).join(',')}}`;
  const mapsLayout = `{"current_layout":{"regions":{"content":{"components":[${Array.from(
    { length: mapComponents },
    (_, n) => `{"uuid":"m${n}","component":"sdc.demo.text","props":{"body":"x","m":${map}}}`,
  ).join(',')}]}}}}`;
  // G3 nonplain: the layout limit's components of 19 values each, the last with a key a node does not have.
  const plainComponents = Math.max(1, Math.floor(LIMITS.maxLayoutComponents * scale));
  const node = (n: number) =>
    `{"uuid":"n${n}","component":"sdc.demo.text","props":{${Array.from({ length: 16 }, (_, k) => `"p${k}":${k}`).join(',')}}${n === plainComponents - 1 ? ',"unknown":1' : ''}}`;
  const nonPlainLayout = `{"current_layout":{"regions":{"content":{"components":[${Array.from({ length: plainComponents }, (_, n) => node(n)).join(',')}]}}}}`;
  // G2: hop 1 selects a uuid; hop 2's page of 128-character uuids lacks it, and the removal looks for close ones.
  const uuidComponents = Math.max(1, Math.floor(LIMITS.maxLayoutComponents * scale));
  const page = {
    regions: {
      content: {
        components: Array.from({ length: uuidComponents }, (_, n) => ({
          uuid: longUuid(n),
          component: 'sdc.demo.heading',
          props: { text: `Heading ${n}` },
        })),
      },
    },
  };
  const selected = longUuid(uuidComponents + 1);
  const removeId = id('g2-remove-selected');
  const removeHop1 = JSON.stringify({
    protocol: PROTOCOL_VERSION,
    request_id: removeId,
    hop: 1,
    agent: 'page_builder',
    messages: [{ role: 'user', text: 'Remove the selected component' }],
    capabilities: { outputs: ['remove_components', 'move_components'] },
    context: { current_layout: { regions: { content: { components: [] } } }, selected_component: selected },
  });
  const removeHop2 = JSON.stringify({
    protocol: PROTOCOL_VERSION,
    request_id: removeId,
    hop: 2,
    agent: 'page_builder',
    context: { current_layout: page, selected_component: selected },
  });
  // A component the agent edits (the edit-selected scenario) holding the layout's value limit as small objects in a
  // prop of its own: the agent's components are fingerprinted prop by prop, their short values kept (spec §16.1).
  const keptId = id('kept-props');
  const keptObjects = Math.max(1, Math.floor((LIMITS.maxJsonValues * scale - 100) / 101));
  const keptObject = `{${Array.from({ length: 100 }, (_, k) => `"k${k}":${k}`).join(',')}}`;
  const keptLayout = `{"regions":{"content":{"components":[{"uuid":"card-1","component":"sdc.demo.card","props":{"title":"Cookie","blob":[${repeatJoined(keptObject, keptObjects)}]}}]}}}`;
  const keptHop = (hop: number) =>
    `{"protocol":"${PROTOCOL_VERSION}","request_id":"${keptId}","hop":${hop},"agent":"page_builder",${
      hop === 1 ? '"messages":[{"role":"user","text":"Make the title of this card more tempting"}],' : ''
    }"context":{"current_layout":${keptLayout},"selected_component":"card-1"}}`;
  return [
    json(
      'kept-props',
      `hop 2 of "edit the selected card", the card holding ${keptObjects.toLocaleString('en-US')} objects of 100 keys in a prop: the edit makes it the agent's, fingerprinted prop by prop, 4 at once`,
      keptHop(2),
      { setup: json('kept-props-hop-1', 'its hop 1', keptHop(1)) },
    ),
    json(
      'g3-map-keys',
      `review G3: ${mapComponents} components with one map of ${mapKeys} keys each (the map-key budget), 4 at once`,
      hop1(id('g3-map-keys'), mapsLayout),
    ),
    json(
      'g3-not-plain',
      `review G3: ${plainComponents.toLocaleString('en-US')} components of 19 values, an unknown key on the last (no fast path), 4 at once`,
      hop1(id('g3-not-plain'), nonPlainLayout),
    ),
    json(
      'g2-remove-selected',
      `review G2: hop 2 of "remove the selected component" on ${uuidComponents.toLocaleString('en-US')} components with 128-character uuids, the selected one missing, 4 at once`,
      removeHop2,
      { setup: json('g2-remove-selected-hop-1', 'its hop 1', removeHop1) },
    ),
  ];
}
