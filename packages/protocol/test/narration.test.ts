import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { finalNarration, stripFinalAnswer } from '../src/narration/narration.js';
import { joinNarration, maxHopsMessage } from '../src/server.js';

describe('narration', () => {
  it('joins the turn texts with a blank line, trimmed, skipping empty ones', () => {
    assert.equal(
      joinNarration(['  I will add a hero. ', '', '\n', 'Now the menu.']),
      'I will add a hero.\n\nNow the menu.',
    );
  });

  it('strips the final answer off the end of progress', () => {
    assert.deepEqual(finalNarration(['Adding a hero.', 'Done: a hero.']), {
      progress: 'Adding a hero.',
      message: 'Done: a hero.',
    });
  });

  it('leaves progress empty on a one-hop answer', () => {
    assert.deepEqual(finalNarration(['Hello there.']), { progress: '', message: 'Hello there.' });
  });

  it('strips nothing when the final answer is empty', () => {
    assert.deepEqual(finalNarration(['Adding a hero.', '   ']), { progress: 'Adding a hero.', message: '' });
    assert.equal(stripFinalAnswer('Adding a hero.', ''), 'Adding a hero.');
  });

  it('strips only a whole paragraph, never the tail of an earlier one', () => {
    assert.equal(stripFinalAnswer('We are done', 'done'), 'We are done');
  });

  it('strips only the last occurrence when the answer repeats an earlier paragraph', () => {
    assert.deepEqual(finalNarration(['Done.', 'Adding more.', 'Done.']), {
      progress: 'Done.\n\nAdding more.',
      message: 'Done.',
    });
  });

  it('says how many steps the turn took when it hits max_hops', () => {
    assert.match(maxHopsMessage(3), /3 steps/);
  });
});
