import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { type Layout, LIMITS } from '../src/index.js';
import { readAttachments } from '../src/attachments/read-attachments.js';
import { sniffImageType } from '../src/attachments/sniff.js';
import { readBody } from '../src/door/read-body.js';
import { digestDocument, PropsPrints, readHopRequest } from '../src/server.js';

// The door every TypeScript server shares (the reference server, and so its msw mock): content type, body size, multipart, attachments.
const bytes = (...values: number[]) => new Uint8Array(values);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0);
const hop1 = {
  protocol: 'canvas-ai/1',
  request_id: 'door-1',
  hop: 1,
  messages: [{ role: 'user', text: 'Hi' }],
  context: { current_layout: { regions: {} } },
};

/** A request whose body streams in chunks and declares no Content-Length. */
function streamed(chunks: number, chunkBytes: number, contentType = 'application/json'): Request {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
    },
  });
  return new Request('http://x/api/hop', {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    duplex: 'half',
  } as RequestInit);
}

describe('sniffImageType', () => {
  it('recognizes png, jpeg, gif and webp by their bytes, and nothing else', () => {
    assert.equal(sniffImageType(PNG), 'image/png');
    assert.equal(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg');
    assert.equal(sniffImageType(bytes(...ascii('GIF87a'))), 'image/gif');
    assert.equal(sniffImageType(bytes(...ascii('GIF89a'), 0)), 'image/gif');
    assert.equal(sniffImageType(bytes(...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBP'))), 'image/webp');
    assert.equal(sniffImageType(bytes(...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WAVE'))), undefined);
    assert.equal(sniffImageType(bytes(...ascii('RIFF'))), undefined, 'too short to be a webp');
    assert.equal(sniffImageType(bytes(...ascii('<svg'))), undefined);
    assert.equal(sniffImageType(bytes()), undefined);
  });
});

/** A file part as the multipart reader hands it over. */
const filePart = (body: Uint8Array, filename = 'a.png') => ({
  name: 'attachments',
  filename,
  contentType: 'image/png',
  body,
});

describe('readAttachments', () => {
  it('keeps images with their sniffed type and refuses the rest, naming the part and the turn', () => {
    const [image] = readAttachments([{ ...filePart(PNG, 'photo.jpg'), contentType: 'image/jpeg' }]);
    assert.equal(image!.mediaType, 'image/png', 'the bytes decide, not the declared type');
    const refused = (parts: Parameters<typeof readAttachments>[0]) => () => readAttachments(parts, 'door-1');
    assert.throws(refused([filePart(new TextEncoder().encode('hello'))]), {
      code: 'attachment_rejected',
      field: 'attachments.0',
      requestId: 'door-1',
    });
    assert.throws(refused([filePart(PNG), { ...filePart(PNG), filename: undefined }]), {
      code: 'attachment_rejected',
      field: 'attachments.1',
    });
    const five = Array.from({ length: LIMITS.maxAttachments + 1 }, () => filePart(PNG));
    assert.throws(refused(five), { code: 'attachment_rejected', field: 'attachments' });
    const big = new Uint8Array(LIMITS.maxAttachmentBytes + 1);
    big.set(PNG);
    assert.throws(refused([filePart(big)]), { code: 'attachment_rejected', field: 'attachments.0' });
  });

  it("never puts the file name in a message: it is the client's text, shown to people", () => {
    const name = '[Retry upload](javascript:alert(document.domain)) ![t](https:127.0.0.1:9).png';
    const big = new Uint8Array(LIMITS.maxAttachmentBytes + 1);
    big.set(PNG);
    for (const body of [new TextEncoder().encode('not an image'), big]) {
      assert.throws(
        () => readAttachments([filePart(body, name)]),
        (error: Error) => !error.message.includes('javascript') && !error.message.includes('127.0.0.1'),
      );
    }
  });
});

describe('readHopRequest', () => {
  it('reads a JSON hop and a multipart hop 1 with its attachments', async () => {
    const json = await readHopRequest(
      new Request('http://x/', {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(hop1),
      }),
    );
    assert.equal(json.request.request_id, 'door-1');
    const form = new FormData();
    form.append('request', JSON.stringify(hop1));
    form.append('attachments', new File([PNG], 'a.png'));
    const multipart = await readHopRequest(new Request('http://x/', { method: 'POST', body: form }));
    assert.deepEqual(
      multipart.attachments.map((attachment) => attachment.mediaType),
      ['image/png'],
    );
  });

  it('fingerprints the page in the walk that validates its layout, given the hop’s props cache (spec §16.1)', async () => {
    const page = { title: 'Crumb & Co.' };
    const layout: Layout = {
      regions: {
        content: {
          components: [
            { uuid: 'grid-1', component: 'sdc.demo.grid', props: { columns: 2 }, slots: { items: [] } },
            { uuid: 'text-1', component: 'sdc.demo.text', props: { body: 'Hello' } },
          ],
        },
      },
    };
    const hop = { ...hop1, hop: 2, context: { current_layout: layout, page } };
    const send = (body: unknown, prints?: PropsPrints) =>
      readHopRequest(
        new Request('http://x/', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        { prints },
      );
    const { digest } = await send(hop, new PropsPrints());
    assert.deepEqual(digest, digestDocument({ layout, page }));
    assert.equal((await send(hop)).digest, undefined, 'no props cache, no fingerprint');
    // A key the schema strips sends the layout down the schema's path: the server fingerprints it itself.
    const stripped = structuredClone(hop);
    Object.assign(stripped.context.current_layout.regions.content!.components[1]!, { label: 'host data' });
    assert.equal((await send(stripped, new PropsPrints())).digest, undefined);
  });

  it('refuses any content type but application/json and multipart/form-data with 415, +json types included', async () => {
    for (const type of ['application/vnd.api+json', 'application/problem+json', 'text/plain', '']) {
      const request = new Request('http://x/', {
        method: 'POST',
        headers: type ? { 'content-type': type } : {},
        body: JSON.stringify(hop1),
      });
      if (!type) request.headers.delete('content-type');
      await assert.rejects(readHopRequest(request), { code: 'unsupported_media_type' }, type || 'no content type');
    }
  });

  it('refuses a body over the limit from its declared length, before reading it', async () => {
    let pulled = false;
    const pull = () => {
      pulled = true;
    };
    const body = new ReadableStream({ pull }, { highWaterMark: 0 });
    const request = new Request('http://x/', {
      method: 'POST',
      body,
      headers: { 'content-length': '2000' },
      duplex: 'half',
    } as RequestInit);
    await assert.rejects(readBody(request, 1000), { code: 'payload_too_large' });
    assert.equal(pulled, false);
  });

  it('reads a body within the limit whole', async () => {
    assert.equal(
      (await readBody(new Request('http://x/', { method: 'POST', body: 'x'.repeat(1000) }), 1000)).byteLength,
      1000,
    );
  });

  it('refuses a streamed body over the limit with 413 by counting its bytes, with no Content-Length to go by', async () => {
    await assert.rejects(readHopRequest(streamed(3, 400), { maxBodyBytes: 1000 }), { code: 'payload_too_large' });
    await assert.rejects(readBody(streamed(3, 400), 1000), { code: 'payload_too_large' });
    assert.equal((await readBody(streamed(2, 400), 1000)).byteLength, 800);
  });

  it('refuses attachments on a hop other than 1', async () => {
    const form = new FormData();
    form.append('request', JSON.stringify({ ...hop1, hop: 2 }));
    form.append('attachments', new File([PNG], 'a.png'));
    await assert.rejects(readHopRequest(new Request('http://x/', { method: 'POST', body: form })), {
      code: 'attachment_rejected',
      field: 'attachments',
    });
  });
});
