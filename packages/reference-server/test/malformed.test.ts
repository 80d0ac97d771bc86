import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { LIMITS } from '@canvas-ai/protocol';
import { malformedRequestBody, type MalformedRequestCase, MalformedRequestTable } from '@canvas-ai/protocol/scenario';
import { FIXTURES_DIR } from '../src/config.js';
import {
  firstHop,
  openSession,
  startTestServer,
  type TestServer,
  type TestSession,
  type JsonBody,
} from './support/harness.js';

const table = MalformedRequestTable.parse(parse(await readFile(`${FIXTURES_DIR}malformed-requests.yaml`, 'utf8')));
const png = await readFile(`${FIXTURES_DIR}attachments/cookie.png`);

describe('requests refused at the door, over HTTP', () => {
  let server: TestServer;
  let session: TestSession;
  before(async () => {
    server = await startTestServer();
    session = await openSession(server);
  });
  after(() => server.close());

  async function send(body: BodyInit, headers: Record<string, string>) {
    const reply = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(headers), body });
    return { status: reply.status, body: (await reply.json()) as JsonBody };
  }

  async function assertStillServes() {
    const reply = await session.hop(
      firstHop(`valid-${crypto.randomUUID()}`, 'How do I get the assistant to change my page?'),
    );
    assert.equal(reply.status, 200, 'the next valid turn is served');
    assert.equal(reply.body.should_continue, false);
  }

  function sendRow(row: MalformedRequestCase) {
    return send(malformedRequestBody(row), { 'content-type': row.content_type ?? 'application/json', ...row.headers });
  }

  for (const row of table) {
    it(`answers "${row.name}" with ${row.expect.status} ${row.expect.code}`, async () => {
      const reply = await sendRow(row);
      assert.equal(reply.status, row.expect.status);
      assert.equal(reply.body.status, false);
      assert.equal(reply.body.should_continue, false);
      assert.equal(reply.body.error.code, row.expect.code);
      if (row.expect.field !== undefined) assert.equal(reply.body.error.field, row.expect.field);
      assert.equal(typeof reply.body.message, 'string');
    });
  }

  it('still serves a valid turn after every malformed row', async () => {
    // Sends the rows itself, so it holds whichever tests ran before it.
    for (const row of table) await sendRow(row);
    await assertStillServes();
  });

  it('refuses a message over 20,000 characters with 400 naming the message', async () => {
    const reply = await send(JSON.stringify(firstHop('long-1', 'x'.repeat(LIMITS.messageChars + 1))), {
      'content-type': 'application/json',
    });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'invalid_request');
    assert.equal(reply.body.error.field, 'messages.0.text');
  });

  it('refuses a layout over 20,000 components with 400 naming the layout', async () => {
    const components = Array.from({ length: LIMITS.maxLayoutComponents + 1 }, (_, i) => ({
      uuid: `t${i}`,
      component: 'sdc.demo.text',
      props: { body: 'x' },
    }));
    const body = {
      ...firstHop('big-layout', 'Hi'),
      context: { current_layout: { regions: { content: { components } } } },
    };
    const reply = await send(JSON.stringify(body), { 'content-type': 'application/json' });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.field, 'context.current_layout');
  });

  it('refuses JSON nested deeper than the limit with 400', async () => {
    let extra: unknown = {};
    for (let i = 0; i < LIMITS.maxJsonDepth + 5; i += 1) extra = { a: extra };
    const body = { ...firstHop('deep-1', 'Hi'), context: { current_layout: { regions: {} }, extra } };
    const reply = await send(JSON.stringify(body), { 'content-type': 'application/json' });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'invalid_request');
  });

  it('refuses a request without a content type with 415', async () => {
    const reply = await fetch(server.hopUrl, {
      method: 'POST',
      headers: session.headers(),
      body: new Uint8Array([123, 125]),
    });
    assert.equal(reply.status, 415);
    assert.equal(((await reply.json()) as JsonBody).error.code, 'unsupported_media_type');
  });

  it('answers an agent the config does not offer with 400 unknown_agent', async () => {
    const reply = await session.hop(firstHop('agent-1', 'Hi', { agent: 'nobody' }));
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'unknown_agent');
    assert.equal(reply.body.error.field, 'agent');
  });

  it('answers a body over 32 MB with 413 before reading it all, and still serves the next turn', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(server.hopUrl, {
        method: 'POST',
        headers: session.headers({
          'content-type': 'application/json',
          'content-length': String(LIMITS.maxBodyBytes + chunk.length),
        }),
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part) => (text += part));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      // The server may close the connection once it has answered; the answer is what matters.
      req.on('error', (error) =>
        error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error),
      );
      // Really send more than 32 MB: the server must answer from the declared length without reading it all.
      const write = (left: number): void => {
        if (left === 0) return void req.end();
        if (req.destroyed) return;
        if (req.write(chunk)) write(left - 1);
        else req.once('drain', () => write(left - 1));
      };
      write(LIMITS.maxBodyBytes / chunk.length + 1);
    });
    assert.equal(status, 413);
    assert.equal(JSON.parse(body).error.code, 'payload_too_large');
    await assertStillServes();
  });

  it('counts a streamed body without Content-Length and answers 413 past the limit', async () => {
    const small = await startTestServer({ limits: { maxBodyBytes: 64 * 1024 } });
    try {
      const own = await openSession(small);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i += 1) controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
          controller.close();
        },
      });
      const reply = await fetch(small.hopUrl, {
        method: 'POST',
        headers: own.headers({ 'content-type': 'application/json' }),
        body: stream,
        duplex: 'half',
      } as RequestInit);
      assert.equal(reply.status, 413);
      assert.equal(((await reply.json()) as JsonBody).error.code, 'payload_too_large');
    } finally {
      await small.close();
    }
  });

  describe('the work a request may cost, bounded before it is spent', () => {
    /**
     * Counts the calls of a global function on body-sized input (a first argument of more than 100,000 characters,
     * or more than 1,000 arguments: bytes spread into it), not the small calls of headers and tokens.
     */
    async function counting<T>(
      owner: Record<string, unknown>,
      name: string,
      run: () => Promise<T>,
    ): Promise<{ calls: number; result: T }> {
      const original = owner[name] as (...args: unknown[]) => unknown;
      let calls = 0;
      owner[name] = (...args: unknown[]) => {
        if (String(args[0] ?? '').length > 100_000 || args.length > 1_000) calls += 1;
        return original.apply(owner, args);
      };
      try {
        const result = await run();
        return { calls, result };
      } finally {
        owner[name] = original;
      }
    }

    it(`answers a JSON body over ${LIMITS.maxJsonBodyBytes} bytes (far below the multipart limit) with 413`, async () => {
      const body = JSON.stringify({
        ...firstHop('json-limit', 'Hi'),
        context: { current_layout: { regions: {} }, extra: 'x'.repeat(LIMITS.maxJsonBodyBytes) },
      });
      const reply = await send(body, { 'content-type': 'application/json' });
      assert.equal(reply.status, 413);
      assert.equal(reply.body.error.code, 'payload_too_large');
      await assertStillServes();
    });

    it('refuses a body over the value budget with 400 without ever decoding it', async () => {
      const extra = Array.from({ length: LIMITS.maxJsonValuesOutsideLayout + 100 }, () => 0);
      const body = JSON.stringify({
        ...firstHop('budget-1', 'Hi'),
        context: { current_layout: { regions: {} }, extra },
      });
      const { calls, result } = await counting(JSON as unknown as Record<string, unknown>, 'parse', () =>
        send(body, { 'content-type': 'application/json' }),
      );
      assert.equal(result.status, 400);
      assert.equal(result.body.error.code, 'invalid_request');
      assert.match(result.body.error.field, /^context\.extra\.\d+$/);
      assert.equal(calls, 0, 'JSON.parse never saw the body');
    });

    it(`refuses a multipart body of more than ${LIMITS.maxMultipartParts} parts with 400, and a part of 8 KiB of headers`, async () => {
      const request = JSON.stringify(firstHop('parts-1', 'Hi'));
      const part = (name: string, content: string, headers = '') =>
        `--B\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${content}\r\n`;
      const many = `${part('request', request)}${part('x', '1').repeat(LIMITS.maxMultipartParts)}--B--\r\n`;
      const parts = await send(many, { 'content-type': 'multipart/form-data; boundary=B' });
      assert.equal(parts.status, 400);
      assert.match(parts.body.message, /more than 16 parts/);
      const lines = 'X-A: b\r\n'.repeat(2_000);
      const headers = await send(`${part('request', request, lines)}--B--\r\n`, {
        'content-type': 'multipart/form-data; boundary=B',
      });
      assert.equal(headers.status, 400);
      assert.match(headers.body.message, /more than 8192 bytes of headers/);
      await assertStillServes();
    });

    it('stores four 5 MiB attachments as base64 without String.fromCharCode', async () => {
      const form = new FormData();
      form.append(
        'request',
        JSON.stringify({
          ...firstHop(`b64-${crypto.randomUUID()}`, 'Put this photo of our cookie in a hero at the top of the page'),
          agent: 'page_builder',
        }),
      );
      const image = new Uint8Array(LIMITS.maxAttachmentBytes);
      image.set(png);
      for (let index = 0; index < LIMITS.maxAttachments; index += 1)
        form.append('attachments', new Blob([image], { type: 'image/png' }), `p${index}.png`);
      const { calls, result } = await counting(
        String as unknown as Record<string, unknown>,
        'fromCharCode',
        async () => {
          const reply = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(), body: form });
          return { status: reply.status, body: (await reply.json()) as JsonBody };
        },
      );
      assert.equal(result.status, 200, JSON.stringify(result.body).slice(0, 300));
      assert.equal(result.body.should_continue, true, 'the turn, attachments and all, is stored');
      assert.equal(calls, 0);
    });
  });

  describe('attachments (multipart hop 1)', () => {
    function multipart(files: Array<{ bytes: Uint8Array; name: string; type?: string }>, hop = 1) {
      const form = new FormData();
      const request =
        hop === 1
          ? firstHop(`mp-${crypto.randomUUID()}`, 'Put this photo in a hero')
          : { ...firstHop('mp-2', 'x'), hop };
      form.append('request', JSON.stringify({ ...request, agent: 'page_builder' }));
      for (const file of files)
        form.append('attachments', new Blob([file.bytes.slice()], { type: file.type ?? 'image/png' }), file.name);
      return form;
    }
    async function post(form: FormData) {
      const reply = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(), body: form });
      return { status: reply.status, body: (await reply.json()) as JsonBody };
    }

    it('accepts a real PNG and runs the hop', async () => {
      const reply = await post(multipart([{ bytes: png, name: 'cookie.png' }]));
      assert.equal(reply.status, 200);
    });

    it('refuses a file that is not an image by its bytes, whatever its declared type', async () => {
      const reply = await post(
        multipart([{ bytes: new TextEncoder().encode('<svg onload=alert(1)>'), name: 'x.png', type: 'image/png' }]),
      );
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, 'attachment_rejected');
      assert.equal(reply.body.error.field, 'attachments.0');
    });

    it('refuses more than 4 files', async () => {
      const reply = await post(multipart(Array.from({ length: 5 }, (_, i) => ({ bytes: png, name: `p${i}.png` }))));
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, 'attachment_rejected');
      assert.equal(reply.body.error.field, 'attachments');
    });

    it('refuses a file over 5 MB', async () => {
      const big = new Uint8Array(LIMITS.maxAttachmentBytes + 1);
      big.set(png);
      const reply = await post(multipart([{ bytes: big, name: 'big.png' }]));
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, 'attachment_rejected');
    });

    it('refuses attachments on a later hop', async () => {
      const reply = await post(multipart([{ bytes: png, name: 'cookie.png' }], 2));
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, 'attachment_rejected');
    });

    it('needs a request part', async () => {
      const form = new FormData();
      form.append('attachments', new Blob([png]), 'cookie.png');
      const reply = await post(form);
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, 'missing_field');
      assert.equal(reply.body.error.field, 'request');
    });
  });
});
