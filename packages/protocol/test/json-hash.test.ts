// The hash of JSON values in memory that fingerprints props (layout/json-hash.ts): alike exactly when the JSON is.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FNV_OFFSET, JsonHasher } from '../src/layout/json-hash.js';

const hash = (value: unknown) => new JsonHasher().value(value, FNV_OFFSET);

describe('JsonHasher', () => {
  it('hashes a value and its JSON round trip alike', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(hash(value), hash(JSON.parse(JSON.stringify(value))));
      }),
    );
  });

  it('hashes values whose JSON differs differently (but for a 32-bit collision)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        assert.notEqual(hash(a), hash(b));
      }),
    );
  });

  it('tells apart what only the kind, nesting or order of values tells apart', () => {
    const values = [
      '1',
      1,
      [1],
      [[1]],
      [],
      {},
      [[]],
      null,
      true,
      'true',
      { a: 'b' },
      { a: ['b'] },
      { b: 'a' },
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      ['ab', 'c'],
      ['a', 'bc'],
      { ab: 'c' },
      { a: 'bc' },
    ];
    assert.equal(new Set(values.map(hash)).size, values.length);
  });

  it('follows JSON for what JSON leaves out or writes as null', () => {
    assert.equal(hash({ a: 1, gone: undefined }), hash({ a: 1 }));
    assert.equal(hash([undefined, 1]), hash([null, 1]));
    assert.equal(hash(-0), hash(0));
    assert.equal(hash(Number.NaN), hash(null));
  });

  it('leaves the named members of an object out, and counts what it hashed', () => {
    const hasher = new JsonHasher();
    assert.equal(
      hasher.object({ title: 'x', summary: 'computed' }, FNV_OFFSET, ['summary']),
      hasher.object({ title: 'x' }, FNV_OFFSET),
    );
    assert.ok(hasher.work >= 'titlex'.length * 2);
  });

  it('hashes an object in steps, or within a budget, as it does at once, for any object and step size', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.integer({ min: 1, max: 64 }),
        fc.subarray(['a', 'b', '']),
        (value, work, leaveOut) => {
          const atOnce = new JsonHasher().object(value, FNV_OFFSET, leaveOut);
          const steps = new JsonHasher().objectSteps(value, FNV_OFFSET, leaveOut, work);
          let next = steps.next();
          while (!next.done) next = steps.next();
          assert.equal(next.value, atOnce);
          const bounded = new JsonHasher();
          const within = bounded.objectWithin(value, FNV_OFFSET, leaveOut, work);
          if (within === undefined) assert.ok(bounded.work > work, 'gave up before its budget was spent');
          else assert.equal(within, atOnce);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('hashes any value in steps by a shared clock as it does at once, yielding once the clock runs out', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.integer({ min: 1, max: 64 }), (values, stepWork) => {
        const hasher = new JsonHasher();
        const clock = { yieldAt: stepWork, stepWork };
        let yields = 0;
        let workAtOnce = 0;
        for (const value of values) {
          const steps = hasher.valueSteps(value, FNV_OFFSET, clock);
          let next = steps.next();
          while (!next.done) {
            yields += 1;
            next = steps.next();
          }
          const atOnce = new JsonHasher();
          assert.equal(next.value, atOnce.value(value, FNV_OFFSET));
          workAtOnce += atOnce.work;
        }
        assert.equal(hasher.work, workAtOnce, 'the same work as at once: walks yield by it');
        if (yields > 0) assert.ok(hasher.work >= stepWork, 'no yield before the clock ran out');
      }),
      { numRuns: 1_000 },
    );
    const list = Array.from({ length: 1_000 }, (_, index) => [index, `item ${index}`]);
    const steps = new JsonHasher().valueSteps(list, FNV_OFFSET, { yieldAt: 500, stepWork: 500 });
    let yields = 0;
    while (!steps.next().done) yields += 1;
    assert.ok(yields > 10, `${yields} yields for a list of 1,000 pairs`);
  });

  it('hashes in steps as at once what JSON leaves out, inherited members and empty containers', () => {
    const inherited = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { own: 2 });
    const values: Array<Record<string, unknown>> = [
      { a: undefined, b: () => 1, c: Symbol('c'), d: [undefined, () => 1, Symbol('s')], e: 1 },
      inherited,
      { empty: [[], {}, [[]], [{}]], nested: { deeper: { list: [] } } },
      { '': '', '0': 0, '10': [], '2': {}, __proto__key: null },
    ];
    for (const value of values) {
      const steps = new JsonHasher().objectSteps(value, FNV_OFFSET, [], 1);
      let next = steps.next();
      while (!next.done) next = steps.next();
      assert.equal(next.value, new JsonHasher().object(value, FNV_OFFSET));
    }
  });

  it('yields in a value of nothing but empty lists, objects or strings', () => {
    for (const item of [[], {}, '']) {
      const value = { list: Array.from({ length: 10_000 }, () => structuredClone(item)) };
      const hasher = new JsonHasher();
      const steps = hasher.objectSteps(value, FNV_OFFSET, [], 1_000);
      let yields = 0;
      while (!steps.next().done) yields += 1;
      assert.ok(yields >= 50, `${yields} yields for 10,000 items of ${JSON.stringify(item)}`);
      assert.equal(new JsonHasher().objectWithin(value, FNV_OFFSET, [], 1_000), undefined, 'gives up past its budget');
    }
  });

  it('yields after each step of work, and gives up past its budget without keeping the limit', () => {
    const value = { list: Array.from({ length: 1_000 }, (_, index) => ({ index, name: `item ${index}` })) };
    const hasher = new JsonHasher();
    const steps = hasher.objectSteps(value, FNV_OFFSET, [], 500);
    let yields = 0;
    while (!steps.next().done) yields += 1;
    assert.ok(yields >= Math.floor(hasher.work / 500) - 1 && yields > 10, `${yields} yields for ${hasher.work} work`);
    const bounded = new JsonHasher();
    assert.equal(bounded.objectWithin(value, FNV_OFFSET, [], 500), undefined);
    assert.equal(bounded.object(value, FNV_OFFSET), new JsonHasher().object(value, FNV_OFFSET));
  });
});
