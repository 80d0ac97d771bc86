import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ERROR_CODES, ERROR_STATUS, errorMessage, HopErrorBody, isKnownErrorCode } from '../src/index.js';
import { HopError } from '../src/server.js';

describe('error bodies', () => {
  it("builds a valid body for every code, with the code's status", () => {
    for (const code of ERROR_CODES) {
      const error = new HopError(code, 'Something to do next.', { requestId: 'turn-1', progress: 'So far.' });
      assert.equal(error.status, ERROR_STATUS[code]);
      assert.equal(HopErrorBody.safeParse(error.toBody()).success, true, code);
    }
  });

  it('reads a body whose code is newer than this version, keeping its message and progress', () => {
    const body = {
      status: false,
      should_continue: false,
      progress: 'Added the hero.',
      message: 'Slow down.',
      error: { code: 'rate_limited' },
    };
    const parsed = HopErrorBody.safeParse(body);
    assert.equal(parsed.success, true);
    assert.equal(parsed.data?.progress, 'Added the hero.');
    assert.equal(isKnownErrorCode('rate_limited'), false);
    assert.equal(isKnownErrorCode('hop_in_progress'), true);
  });

  it('still rejects an error body without a code', () => {
    assert.equal(
      HopErrorBody.safeParse({ status: false, should_continue: false, progress: '', message: 'x', error: {} }).success,
      false,
    );
  });
});

describe('errorMessage', () => {
  it("gives an error's message, and anything else thrown as text", () => {
    assert.equal(errorMessage(new TypeError('bad input')), 'bad input');
    assert.equal(errorMessage('a thrown string'), 'a thrown string');
    assert.equal(errorMessage({ message: 'an error from another realm' }), 'an error from another realm');
    assert.equal(errorMessage(undefined), 'undefined');
    assert.equal(errorMessage(null), 'null');
    assert.equal(errorMessage({ message: 42 }), '[object Object]');
  });
});
