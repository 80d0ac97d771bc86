import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Hono } from 'hono';
import { ConfigError } from '../src/config-error.js';
import { addressBucket, clientAddress } from '../src/client-address.js';
import { toBase64, toBase64Url } from '../src/base64.js';
import { UsageError } from '@canvas-ai/protocol/node';
import { helpText, parseCliOptions } from '../src/cli-options.js';
import { CsrfTokens } from '../src/csrf.js';
import { Sessions } from '../src/session.js';
import { Signer } from '../src/signer.js';
import { addressLedgerKey, cancelMarkerKey, ledgerKey, parseTurnKey, turnKey } from '../src/store/keys.js';
import { Turnstile } from '../src/turnstile.js';
import { jsonLength } from '../src/store/json-length.js';

describe('CSRF tokens', () => {
  const session = () => toBase64Url(crypto.getRandomValues(new Uint8Array(32)));

  it('accept a token of the session, within its lifetime, and nothing else', async () => {
    let now = Date.UTC(2026, 0, 1);
    const tokens = new CsrfTokens('a secret of at least sixteen bytes', { ttlMs: 60_000, now: () => now });
    const alice = session();
    const bob = session();
    const token = await tokens.tokenFor(alice);
    assert.match(token, /^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/, 'its issue time, then its signature');
    assert.equal(await tokens.verify(alice, token), true);
    assert.equal(await tokens.verify(bob, token), false);
    assert.equal(await tokens.verify(alice, undefined), false);
    assert.equal(await tokens.verify(alice, token.slice(0, -1)), false);
    const [issued, signature] = token.split('.') as [string, string];
    const later = (Number.parseInt(issued, 36) + 3600).toString(36);
    assert.equal(await tokens.verify(alice, `${later}.${signature}`), false, 'the issue time is signed');
    assert.equal(
      await new CsrfTokens('another secret, sixteen bytes+').verify(alice, token),
      false,
      'bound to the secret',
    );
    now += 60_000;
    assert.equal(await tokens.verify(alice, token), true, 'still within its lifetime');
    now += 1_000;
    assert.equal(await tokens.verify(alice, token), false, 'expired');
  });

  it('refuses a short secret', () => {
    assert.throws(
      () => new CsrfTokens('short'),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^CANVAS_AI_SECRET \(createApp security.secret\): 5 bytes; the CSRF secret must be at least 16 bytes/.test(
          error.message,
        ),
    );
  });
});

describe('sessions', () => {
  /** The `Set-Cookie` a response gets when `sessions` sets `value` (through Hono's `setCookie`). */
  const cookieSetBy = async (sessions: Sessions, value: string): Promise<string> => {
    const app = new Hono().get('/', (c) => {
      sessions.setCookie(c, value);
      return c.body(null, 204);
    });
    return (await app.request('/')).headers.get('set-cookie') ?? '';
  };
  const signer = new Signer('a secret of at least sixteen bytes');

  it('mint signed ids of a key-safe shape, and read back only what they signed', async () => {
    const sessions = new Sessions(signer, { secure: false, sameSite: 'Lax' });
    const { id, value: minted } = await sessions.mint();
    assert.match(id, /^[A-Za-z0-9_-]{43}$/, 'no colon or slash: the id goes into store keys');
    const setCookie = await cookieSetBy(sessions, minted);
    const value = /^canvas_ai_session=([^;]+); Path=\/; HttpOnly; SameSite=Lax$/.exec(setCookie)![1]!;
    assert.equal(await sessions.read(value), id);
    assert.equal(await sessions.read('A'.repeat(43)), undefined, 'an unsigned id is no session');
    assert.equal(
      await sessions.read(`${'A'.repeat(43)}.${value.split('.')[1]}`),
      undefined,
      'nor a borrowed signature',
    );
    assert.equal(
      await new Sessions(new Signer('another secret, sixteen bytes+'), { secure: false, sameSite: 'Lax' }).read(value),
      undefined,
    );
    assert.equal(await sessions.read(undefined), undefined);
  });

  it('use a __Host- cookie when Secure, so no subdomain can set it', async () => {
    const secure = new Sessions(signer, { secure: true, sameSite: 'Lax' });
    assert.equal(secure.cookieName, '__Host-canvas_ai_session');
    assert.match(
      await cookieSetBy(secure, (await secure.mint()).value),
      /^__Host-canvas_ai_session=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
  });
});

describe('the CLI options', () => {
  it('takes the provider from CANVAS_AI_PROVIDER when --provider is not given, the flag winning', () => {
    assert.equal(parseCliOptions([], { CANVAS_AI_PROVIDER: 'openai' }).provider, 'openai');
    assert.equal(parseCliOptions(['--provider', 'scripted'], { CANVAS_AI_PROVIDER: 'openai' }).provider, 'scripted');
    assert.equal(parseCliOptions([], {}).provider, 'scripted');
  });

  it('default to the scripted provider on 127.0.0.1:8787', () => {
    assert.deepEqual(parseCliOptions([]), {
      port: 8787,
      host: '127.0.0.1',
      agents: undefined,
      catalog: undefined,
      scenarios: undefined,
      provider: 'scripted',
      scriptedWordDelayMs: 0,
      static: undefined,
      store: 'memory',
      allowedHosts: undefined,
      allowedOrigins: [],
      tokenTtlMs: 12 * 3_600_000,
      sessionTurns: 32,
      sessionBytes: 64 * 1024 * 1024,
      sessionAnswers: 32,
      ipSessions: 120,
      addressTurns: 64,
      addressBytes: 256 * 1024 * 1024,
      storeBytes: 512 * 1024 * 1024,
      clientAddressHeader: undefined,
      maxConnections: 512,
      maxConnectionsPerIp: 64,
      reservedConnections: 64,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 60_000,
      maxBufferedBodyBytes: 256 * 1024 * 1024,
      help: false,
    });
  });

  it('read the address quotas, the store total and the client-address header from their flags, else their variables', () => {
    const options = parseCliOptions(
      ['--address-turns', '8', '--store-bytes', '1GiB', '--client-address-header', 'X-Real-IP'],
      {
        CANVAS_AI_ADDRESS_TURNS: '9',
        CANVAS_AI_ADDRESS_BYTES: '32MiB',
        CANVAS_AI_RESERVED_CONNECTIONS: '0',
      },
    );
    assert.equal(options.addressTurns, 8);
    assert.equal(options.addressBytes, 32 * 1024 * 1024);
    assert.equal(options.storeBytes, 1024 * 1024 * 1024);
    assert.equal(options.clientAddressHeader, 'x-real-ip');
    assert.equal(options.reservedConnections, 0);
    assert.equal(parseCliOptions(['--address-bytes', '0']).addressBytes, 0, '0: no limit');
    assert.equal(
      parseCliOptions([], { CANVAS_AI_CLIENT_ADDRESS_HEADER: 'x-forwarded-for' }).clientAddressHeader,
      'x-forwarded-for',
    );
    assert.throws(
      () => parseCliOptions(['--client-address-header', 'x forwarded']),
      /--client-address-header: "x forwarded" is not a header name/,
    );
    assert.throws(() => parseCliOptions(['--store-bytes', '0']), /--store-bytes must be a size/);
  });

  it('read the scripted word delay from its flag, else its variable (the demo streams words)', () => {
    assert.equal(parseCliOptions(['--scripted-word-delay', '30']).scriptedWordDelayMs, 30);
    assert.equal(parseCliOptions([], { CANVAS_AI_SCRIPTED_WORD_DELAY_MS: '12' }).scriptedWordDelayMs, 12);
    assert.throws(() => parseCliOptions(['--scripted-word-delay', 'fast']), /--scripted-word-delay must be a whole/);
  });

  it('read the connection limits from their flags, else their variables, with units', () => {
    const options = parseCliOptions(['--max-connections', '100', '--body-timeout', '2m', '--max-buffered', '64MiB'], {
      CANVAS_AI_MAX_CONNECTIONS: '7',
      CANVAS_AI_HEADERS_TIMEOUT: '1500ms',
      CANVAS_AI_MAX_CONNECTIONS_PER_IP: '0',
    });
    assert.equal(options.maxConnections, 100, 'the flag wins');
    assert.equal(options.headersTimeoutMs, 1_500);
    assert.equal(options.bodyTimeoutMs, 120_000);
    assert.equal(options.maxConnectionsPerIp, 0);
    assert.equal(options.maxBufferedBodyBytes, 64 * 1024 * 1024);
    assert.throws(() => parseCliOptions(['--body-timeout', 'soon']), /--body-timeout must be a duration/);
    assert.throws(
      () => parseCliOptions([], { CANVAS_AI_MAX_BUFFERED: '1TB' }),
      /CANVAS_AI_MAX_BUFFERED must be a size/,
    );
    assert.throws(
      () => parseCliOptions(['--max-connections', '0']),
      /--max-connections must be a whole number of at least 1/,
    );
  });

  it('read every flag', () => {
    const options = parseCliOptions([
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--agents',
      'a.yaml',
      '--catalog',
      'c.yaml',
      '--scenarios',
      's',
      '--provider',
      'openai',
    ]);
    assert.equal(options.port, 0);
    assert.equal(options.host, '0.0.0.0');
    assert.equal(options.agents, 'a.yaml');
    assert.equal(options.catalog, 'c.yaml');
    assert.equal(options.scenarios, 's');
    assert.equal(options.provider, 'openai');
  });

  it('refuse bad values with a usage error naming the flag', () => {
    assert.throws(
      () => parseCliOptions(['--port', 'eighty']),
      (error: unknown) => error instanceof UsageError && /--port/.test(error.message),
    );
    assert.throws(() => parseCliOptions(['--provider', 'magic']), /--provider must be scripted, openai or anthropic/);
    assert.throws(
      () => parseCliOptions([], { CANVAS_AI_PROVIDER: 'magic' }),
      /CANVAS_AI_PROVIDER must be scripted, openai or anthropic/,
    );
    assert.throws(() => parseCliOptions(['--colour']), UsageError);
  });

  it('lists every flag of --help, with its placeholder, in the README flags table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const usages = [...helpText().matchAll(/^ {2}(--[a-z-]+(?: \S+)?) {2,}/gm)].map((match) => match[1]!);
    assert.ok(usages.length >= 9, `only ${usages.length} flags found in --help`);
    for (const usage of usages)
      assert.ok(readme.includes(`| \`${usage.replace('|', '\\|')}\` |`), `${usage} is not in the README table`);
  });

  it('document every flag and environment variable in --help', () => {
    const help = helpText();
    for (const flag of ['--port', '--host', '--agents', '--catalog', '--scenarios', '--provider', '--static'])
      assert.match(help, new RegExp(flag));
    for (const name of ['CANVAS_AI_OPENAI_BASE_URL', 'CANVAS_AI_OPENAI_API_KEY', 'CANVAS_AI_OPENAI_MODEL'])
      assert.match(help, new RegExp(name));
  });
});

/** Counts `String.fromCharCode` calls while `run` runs. */
function countingFromCharCode<T>(run: () => T): { calls: number; result: T } {
  const original = String.fromCharCode;
  let calls = 0;
  String.fromCharCode = (...codes: number[]) => {
    calls += 1;
    return original(...codes);
  };
  try {
    const result = run();
    return { calls, result };
  } finally {
    String.fromCharCode = original;
  }
}

describe('base64', () => {
  it('encodes as Buffer does, with the runtime encoder, never through String.fromCharCode', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 31, 32, 33, 100_000]) {
      const bytes = crypto.getRandomValues(new Uint8Array(Math.min(length, 65_536)));
      const expected = Buffer.from(bytes).toString('base64');
      const { calls, result } = countingFromCharCode(() => toBase64(bytes));
      assert.equal(result, expected, `${length} bytes`);
      assert.equal(calls, 0);
      assert.equal(toBase64Url(bytes), expected.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
    }
  });

  it('encodes a view into a larger buffer from its own offset', () => {
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(toBase64(whole.subarray(2, 5)), Buffer.from([3, 4, 5]).toString('base64'));
  });
});

describe('Turnstile', () => {
  it('lets the waiters through in order, one per turn of the event loop', async () => {
    const turnstile = new Turnstile();
    const order: string[] = [];
    // Queued by x's step: with one waiter per turn it runs before z; had all three been let through in one turn,
    // after them.
    const x = turnstile.pass().then(() => {
      order.push('x');
      setImmediate(() => order.push('i/o'));
    });
    const y = turnstile.pass().then(() => order.push('y'));
    const z = turnstile.pass().then(() => order.push('z'));
    await Promise.all([x, y, z]);
    assert.deepEqual(order, ['x', 'y', 'i/o', 'z']);
  });
});

describe('store keys', () => {
  it('parse a turn key back into the session and request id it was built from, colons and slashes in the session included', () => {
    for (const [sessionId, requestId] of [
      ['c2Vzc2lvbg', 't1'],
      ['alice', 'x:t1'],
      ['alice:x', 't1'],
      ['user/42%', 'turn-9'],
    ] as const) {
      assert.deepEqual(parseTurnKey(turnKey(sessionId, requestId)), { sessionId, requestId });
    }
    assert.notEqual(turnKey('alice', 'x:t1'), turnKey('alice:x', 't1'));
  });

  it('keep cancel markers and ledgers apart from turns: neither parses as a turn key', () => {
    const key = turnKey('alice:x', 't1');
    assert.equal(parseTurnKey(cancelMarkerKey(key)), undefined);
    assert.equal(parseTurnKey(ledgerKey('alice:x')), undefined);
    assert.equal(parseTurnKey('no-colon'), undefined);
    assert.equal(parseTurnKey('%E0%A4%A:t1'), undefined);
  });

  it('keep the key layout operators read in Redis', () => {
    assert.equal(turnKey('a:b', 't1'), 'a%3Ab:t1');
    assert.equal(cancelMarkerKey(turnKey('s', 't1')), 's:t1/cancelled');
    assert.equal(ledgerKey('s'), 'quota/s');
    assert.equal(addressLedgerKey('2001:db8::/64'), 'quota/address/2001%3Adb8%3A%3A%2F64');
    assert.notEqual(addressLedgerKey('x'), ledgerKey('address'));
  });
});

describe('client addresses', () => {
  it('G4: count an IPv6 address as its /64 and an IPv4-mapped address as its IPv4', () => {
    assert.equal(addressBucket('2001:db8:1:2::a'), '2001:db8:1:2::/64');
    assert.equal(addressBucket('2001:DB8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(addressBucket('2001:0db8:0001:0002:0:0:0:1'), '2001:db8:1:2::/64');
    assert.notEqual(addressBucket('2001:db8:1:3::a'), addressBucket('2001:db8:1:2::a'));
    assert.equal(addressBucket('::'), '0:0:0:0::/64');
    assert.equal(addressBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressBucket('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressBucket('::ffff:c000:207'), '192.0.2.7');
    assert.equal(addressBucket('192.0.2.7'), '192.0.2.7');
    assert.equal(addressBucket('not an address'), 'not an address');
  });

  it('G4: read the named header only, its last entry, and fall back to the socket when it holds no address', () => {
    const headers = (value: string) => new Headers({ 'x-forwarded-for': value });
    assert.equal(clientAddress('10.0.0.1', headers('192.0.2.7'), undefined), '10.0.0.1');
    assert.equal(clientAddress('10.0.0.1', headers('192.0.2.7'), 'x-forwarded-for'), '192.0.2.7');
    assert.equal(clientAddress('10.0.0.1', headers('198.51.100.1, 192.0.2.7'), 'x-forwarded-for'), '192.0.2.7');
    assert.equal(clientAddress('10.0.0.1', headers('[2001:db8::1]:443'), 'x-forwarded-for'), '2001:db8::1');
    assert.equal(clientAddress('10.0.0.1', headers('192.0.2.7, garbage'), 'x-forwarded-for'), '10.0.0.1');
    assert.equal(clientAddress('10.0.0.1', new Headers(), 'x-forwarded-for'), '10.0.0.1');
  });
});

describe('jsonLength', () => {
  /** The count it stands for, written as plainly as possible: its strings' lengths and a few characters per value. */
  const plainCount = (value: unknown): number => {
    if (typeof value === 'string') return value.length + 2;
    if (value === null || typeof value !== 'object') return 8;
    if (Array.isArray(value)) return 2 + value.reduce((sum: number, item) => sum + plainCount(item), 0);
    return 2 + Object.entries(value).reduce((sum, [key, item]) => sum + key.length + 4 + plainCount(item), 0);
  };

  it('counts arrays by index as it counts any value (a fingerprint is arrays of numbers)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(jsonLength(value), plainCount(value));
      }),
    );
    const digestLike = { uuids: ['a', 'bc'], hashes: [1, 2, 3], nested: [[1, 'x'], { k: null }] };
    assert.equal(jsonLength(digestLike), plainCount(digestLike));
  });
});
