import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import fc from 'fast-check';
import { createApp, type CanvasAiApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { firstHop, sharedFixtures, startTestServer, type TestServer } from './support/harness.js';
import {
  anyJson,
  badHopRequest,
  brokenMultipart,
  deepJson,
  FUZZ_MAX_BODY,
  hugeJson,
  oddUnicode,
  oddUnicodeBodies,
  pollutingKeys,
  wrongContentType,
  wrongTypes,
  type FuzzBody,
} from './support/hop-arbitraries.js';
import { RecordingStore } from './support/recording-store.js';

// Property-based fuzzing of POST /api/hop: every bad request gets a structured 4xx, never a 5xx, never a crash,
// and the turn store is never even called. fast-check prints the seed and the smallest failing body on failure.
const fixtures = await sharedFixtures();
const RUNS = 150;

/** The app in-process (`app.fetch`, no socket), a session, and a store that records every call made to it. */
async function fuzzTarget() {
  const store = new RecordingStore(new MemoryTurnStore());
  const app = createApp({
    agents: fixtures.agents,
    catalog: fixtures.catalog,
    provider: new ScriptedProvider(fixtures.scenarios),
    store,
    limits: { maxBodyBytes: FUZZ_MAX_BODY },
    log: silentLogger,
  });
  const token = await app.fetch(new Request('http://127.0.0.1/api/token'));
  const cookie = token.headers.get('set-cookie')!.split(';')[0]!;
  const headers = { cookie, 'x-csrf-token': ((await token.json()) as { token: string }).token };
  return { app, store, headers };
}

/**
 * Whether a refusal left the store alone: not called at all, except that an agent nobody offers is refused only once
 * the store says the turn is new (a held turn keeps its agent, spec §12.4), so the turn is read under its lock.
 * Nothing is ever written. Empties the store's record of calls.
 */
function assertStoreLeftAlone(store: RecordingStore, code: string, kind: string): void {
  const reads = code === 'unknown_agent' ? ['lock', 'get'] : [];
  const calls = store.calls.splice(0);
  assert.deepEqual(
    calls.filter((call) => !reads.includes(call.op)),
    [],
    `${kind}: the store was not called, or only read (${code})`,
  );
}

/** Sends one fuzzed body and checks the answer: 4xx with the protocol's error body, the store untouched. */
async function assertRefused(
  target: { app: CanvasAiApp; store: RecordingStore; headers: Record<string, string> },
  input: FuzzBody,
): Promise<void> {
  const headers: Record<string, string> = { ...target.headers };
  if (input.contentType) headers['content-type'] = input.contentType;
  const response = await target.app.fetch(
    new Request('http://127.0.0.1/api/hop', { method: 'POST', headers, body: input.body }),
  );
  const text = await response.text();
  assert.ok(
    response.status >= 400 && response.status < 500,
    `${input.kind}: answered ${response.status} ${text.slice(0, 300)}`,
  );
  const body = HopErrorBody.safeParse(JSON.parse(text));
  assert.ok(body.success, `${input.kind}: the error body is structured (${text.slice(0, 200)})`);
  assertStoreLeftAlone(target.store, body.data.error.code, input.kind);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, `${input.kind}: Object.prototype is untouched`);
}

describe('fuzzing hop requests (fast-check)', () => {
  let target: Awaited<ReturnType<typeof fuzzTarget>>;
  before(async () => {
    target = await fuzzTarget();
  });

  const families: Array<[string, fc.Arbitrary<FuzzBody>]> = [
    ['a field of a wrong type, or a required one missing', wrongTypes],
    ['any JSON value as the body', anyJson],
    ['huge bodies, too many messages, too long texts', hugeJson],
    ['deeply nested JSON', deepJson],
    ['prototype-pollution keys', pollutingKeys],
    ['odd unicode where ids go, and bytes that are not UTF-8', oddUnicodeBodies],
    ['broken multipart', brokenMultipart],
    ['a content type that is neither JSON nor multipart', wrongContentType],
  ];
  for (const [name, arbitrary] of families) {
    it(`refuses ${name} with a structured 4xx and leaves the store alone`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, (input) => assertRefused(target, input)),
        { numRuns: RUNS },
      );
    });
  }

  it('answers a valid request whose message is odd unicode with a normal response', async () => {
    const { app, headers } = target;
    await fc.assert(
      fc.asyncProperty(oddUnicode, async (text) => {
        const body = JSON.stringify(firstHop(`odd-${crypto.randomUUID()}`, text));
        const response = await app.fetch(
          new Request('http://127.0.0.1/api/hop', {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          }),
        );
        assert.equal(response.status, 200);
        HopResponse.parse(await response.json());
      }),
      { numRuns: 50 },
    );
  });
});

describe('fuzzing the real HTTP server (the Node adapter in front of the app)', () => {
  let server: TestServer;
  let store: RecordingStore;
  before(async () => {
    store = new RecordingStore(new MemoryTurnStore());
    server = await startTestServer({ store, limits: { maxBodyBytes: FUZZ_MAX_BODY } });
  });
  after(() => server.close());

  it('answers every bad request over a socket with a structured 4xx and stays up', async () => {
    const token = await fetch(`${server.url}/api/token`);
    const cookie = token.headers.get('set-cookie')!.split(';')[0]!;
    const headers = { cookie, 'x-csrf-token': ((await token.json()) as { token: string }).token };
    await fc.assert(
      fc.asyncProperty(badHopRequest, async (input) => {
        const response = await fetch(server.hopUrl, {
          method: 'POST',
          headers: { ...headers, 'content-type': input.contentType },
          body: input.body,
        });
        assert.ok(response.status >= 400 && response.status < 500, `${input.kind}: answered ${response.status}`);
        assertStoreLeftAlone(store, HopErrorBody.parse(await response.json()).error.code, input.kind);
      }),
      { numRuns: 100 },
    );
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });
});
