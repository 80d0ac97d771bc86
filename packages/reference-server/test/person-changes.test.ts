import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CanvasDocument, HopRequest } from '@canvas-ai/protocol';
import { diffDocument, digestDocument, PropsPrints } from '@canvas-ai/protocol/server';
import { pageNotice } from '../src/page-notice.js';
import { detectPersonChanges, fingerprintNext } from '../src/person-changes.js';
import { laterHop } from './support/harness.js';

// Security review 2, G3: the hop hashed every prop value of the page in one step of the event loop, so a page of
// large maps held every other request for as long as it took. The hop's own pause runs between the steps now.

/** `components` components whose props each hold one map of `keys` keys (the review's page, scaled down). */
function mapHeavy(components: number, keys: number, value = 'v'.repeat(40)): CanvasDocument {
  return {
    layout: {
      regions: {
        content: {
          components: Array.from({ length: components }, (_, index) => ({
            uuid: `m-${index}`,
            component: 'sdc.demo.text',
            props: {
              map: Object.fromEntries(Array.from({ length: keys }, (_, key) => [`key-${key}`, `${value} ${key}`])),
            },
          })),
        },
      },
    },
    page: {},
  };
}

/** The hop's pause, counting how often the work waited its turn. */
function countingPause() {
  const counter = {
    pauses: 0,
    pause: async () => {
      counter.pauses += 1;
    },
  };
  return counter;
}

/** Hop 2 carrying `document`, as the door hands it to the hop. */
function hop2(document: CanvasDocument): HopRequest {
  return HopRequest.parse(laterHop('g3-person-changes', 2, document.layout, {}));
}

describe("G3: the hop's change detection and fingerprint of a map-heavy page run in steps", () => {
  it('fingerprints a page of about 2 MB in several steps, the same fingerprint as at once', async () => {
    const page = mapHeavy(300, 128);
    const counter = countingPause();
    const { digest } = await fingerprintNext(
      { deps: counter, prints: new PropsPrints() },
      { document: page, placedUuids: [], outputs: [] },
    );
    assert.deepEqual(digest, digestDocument(page, { keepValuesOf: new Set() }));
    assert.ok(counter.pauses > 4, `${counter.pauses} steps`);

    const small = countingPause();
    await fingerprintNext(
      { deps: small, prints: new PropsPrints() },
      { document: mapHeavy(3, 4), placedUuids: [], outputs: [] },
    );
    assert.equal(small.pauses, 1, 'a small page is one step');
  });

  it("finds the person's edits on such a page in several steps, the same edits as at once, and tells the model", async () => {
    const expected = digestDocument(mapHeavy(300, 128));
    const edited = mapHeavy(300, 128, 'w'.repeat(40));
    const counter = countingPause();
    const person = await detectPersonChanges({
      deps: counter,
      request: hop2(edited),
      turn: { expected },
      previousOutputs: [],
      prints: new PropsPrints(),
    });
    assert.deepEqual(person.changes, diffDocument(expected, edited));
    assert.equal(person.changes.length, 300, 'every map changed');
    assert.ok(counter.pauses > 8, `${counter.pauses} steps: the match walk and the new digest`);
    assert.match(person.notice?.text ?? '', /the person edited the page themselves/);
    assert.match(person.notice?.text ?? '', /… and 280 more changes/);
  });

  it('finds nothing on an unchanged page, still in steps', async () => {
    const expected = digestDocument(mapHeavy(300, 128));
    const counter = countingPause();
    const person = await detectPersonChanges({
      deps: counter,
      request: hop2(mapHeavy(300, 128)),
      turn: { expected },
      previousOutputs: [],
      prints: new PropsPrints(),
    });
    assert.deepEqual(person.changes, []);
    assert.equal(person.notice, undefined);
    assert.equal(person.refuseOutput, undefined);
    assert.ok(counter.pauses > 4, `${counter.pauses} steps for the unchanged page`);
  });

  it('describes a page of 20,000 components for the model in steps', async () => {
    const page = mapHeavy(20_000, 1, 'v');
    const counter = countingPause();
    const notice = await pageNotice({
      context: { current_layout: page.layout, page: {}, selected_component: null, extra: {} },
      prints: new PropsPrints(),
      told: undefined,
      person: undefined,
      pause: counter.pause,
    });
    assert.equal(notice.whole, true);
    const text = notice.texts.join('\n');
    assert.match(text, /^# The page now/);
    assert.match(text, /\n {2}m-0 sdc\.demo\.text\n/);
    assert.match(text, /\nm-19999: \{"map":\{"key-0":"v 0"\}\}/);
    assert.ok(counter.pauses > 10, `${counter.pauses} steps: the uuid tree and the props`);
  });
});
