import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { resolvePlacedRefs } from '../src/scenario/index.js';

describe('resolvePlacedRefs', () => {
  it('replaces {{placed.N}} with the N-th placed uuid', () => {
    assert.equal(resolvePlacedRefs('below {{placed.2}} and {{placed.1}}', ['a', 'b']), 'below b and a');
  });

  it('replaces {{selected}} with the selected component', () => {
    assert.equal(
      resolvePlacedRefs('{"component_edits": "\'{{selected}}\': {title: x}"}', [], 'card-7'),
      '{"component_edits": "\'card-7\': {title: x}"}',
    );
  });

  it('refuses {{selected}} when nothing is selected', () => {
    assert.throws(() => resolvePlacedRefs('{{selected}}', [], null), /no component is selected/);
  });

  it('refuses a reference to a component not placed yet', () => {
    assert.throws(() => resolvePlacedRefs('{{placed.3}}', ['a']), /not placed yet \(1 placed so far\)/);
  });
});
