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
    assert.ok(hasher.chars >= 'titlex'.length * 2);
  });
});
