import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText, parseCliOptions, UsageError } from '../src/cli-options.js';
import { CsrfTokens } from '../src/csrf.js';
import { sniffImageType } from '../src/door/attachments.js';
import { readBody } from '../src/door/read-body.js';
import { isSessionId, newSessionId } from '../src/session.js';

describe('CSRF tokens', () => {
  it('accept the token of the session and nothing else', async () => {
    const tokens = new CsrfTokens('a secret of at least sixteen bytes');
    const alice = newSessionId();
    const bob = newSessionId();
    const token = await tokens.tokenFor(alice);
    assert.equal(await tokens.verify(alice, token), true);
    assert.equal(await tokens.verify(bob, token), false);
    assert.equal(await tokens.verify(alice, undefined), false);
    assert.equal(await tokens.verify(alice, token.slice(0, -1)), false);
    assert.equal(await new CsrfTokens('another secret, sixteen bytes+').verify(alice, token), false, 'bound to the secret');
  });

  it('refuses a short secret', () => {
    assert.throws(() => new CsrfTokens('short'), /at least 16 bytes/);
  });

  it('mints session ids of the shape it accepts', () => {
    assert.equal(isSessionId(newSessionId()), true);
    assert.equal(isSessionId('admin'), false);
    assert.equal(isSessionId('x'.repeat(42) + ':'), false, 'a colon would break the store key scoping');
  });
});

describe('the door', () => {
  it('recognizes png, jpeg, gif and webp by their bytes, and nothing else', () => {
    const bytes = (...values: number[]) => new Uint8Array(values);
    const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
    assert.equal(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0)), 'image/png');
    assert.equal(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg');
    assert.equal(sniffImageType(bytes(...ascii('GIF89a'), 0)), 'image/gif');
    assert.equal(sniffImageType(bytes(...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBP'))), 'image/webp');
    assert.equal(sniffImageType(bytes(...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WAVE'))), undefined);
    assert.equal(sniffImageType(bytes(...ascii('<svg'))), undefined);
    assert.equal(sniffImageType(bytes()), undefined);
  });

  it('refuses a body over the limit from its declared length, before reading it', async () => {
    let pulled = false;
    const body = new ReadableStream(
      {
        pull() {
          pulled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const request = new Request('http://x/', { method: 'POST', body, headers: { 'content-length': '2000' }, duplex: 'half' } as RequestInit);
    await assert.rejects(readBody(request, 1000), { code: 'payload_too_large' });
    assert.equal(pulled, false);
  });

  it('reads a body within the limit whole', async () => {
    const request = new Request('http://x/', { method: 'POST', body: 'x'.repeat(1000) });
    assert.equal((await readBody(request, 1000)).byteLength, 1000);
  });
});

describe('the CLI options', () => {
  it('default to the scripted provider on 127.0.0.1:8787', () => {
    assert.deepEqual(parseCliOptions([]), {
      port: 8787,
      host: '127.0.0.1',
      agents: undefined,
      catalog: undefined,
      scenarios: undefined,
      provider: 'scripted',
      static: undefined,
      store: 'memory',
      help: false,
    });
  });

  it('read every flag', () => {
    const options = parseCliOptions(['--port', '0', '--host', '0.0.0.0', '--agents', 'a.yaml', '--catalog', 'c.yaml', '--scenarios', 's', '--provider', 'openai']);
    assert.equal(options.port, 0);
    assert.equal(options.host, '0.0.0.0');
    assert.equal(options.agents, 'a.yaml');
    assert.equal(options.catalog, 'c.yaml');
    assert.equal(options.scenarios, 's');
    assert.equal(options.provider, 'openai');
  });

  it('refuse bad values with a usage error naming the flag', () => {
    assert.throws(() => parseCliOptions(['--port', 'eighty']), (error: unknown) => error instanceof UsageError && /--port/.test(error.message));
    assert.throws(() => parseCliOptions(['--provider', 'magic']), /--provider must be scripted or openai/);
    assert.throws(() => parseCliOptions(['--colour']), UsageError);
  });

  it('document every flag and environment variable in --help', () => {
    const help = helpText();
    for (const flag of ['--port', '--host', '--agents', '--catalog', '--scenarios', '--provider', '--static']) assert.match(help, new RegExp(flag));
    for (const name of ['CANVAS_AI_OPENAI_BASE_URL', 'CANVAS_AI_OPENAI_API_KEY', 'CANVAS_AI_OPENAI_MODEL']) assert.match(help, new RegExp(name));
  });
});
