import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { describeScanProblem } from '../src/parse/scan-json.js';
import { ERROR_STATUS, LIMITS, type ComponentNode } from '../src/index.js';
import { parseHopRequest, parseHopRequestJson } from '../src/server.js';
import { MalformedRequestTable, malformedRequestBody } from '../src/scenario/index.js';

const table = MalformedRequestTable.parse(
  parse(readFileSync(new URL('../../../fixtures/malformed-requests.yaml', import.meta.url), 'utf8')),
);

function validRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 1,
    messages: [{ role: 'user', text: 'Build a homepage' }],
    context: { current_layout: { regions: { content: { components: [] } } } },
    ...overrides,
  };
}

describe('parseHopRequest: the malformed-request table', () => {
  it('has at least 25 rows', () => {
    assert.ok(table.length >= 25, `only ${table.length} rows`);
  });

  // The transport rows (content type) are the server's to check: a parser only ever sees the body.
  for (const row of table.filter((r) => r.content_type === undefined && r.headers === undefined)) {
    it(`rejects: ${row.name} → ${row.expect.code}${row.expect.field ? ` (${row.expect.field})` : ''}`, () => {
      const result = parseHopRequestJson(malformedRequestBody(row));
      assert.equal(result.success, false);
      if (result.success) return;
      assert.equal(result.error.code, row.expect.code, result.error.message);
      assert.equal(result.error.status, row.expect.status);
      assert.equal(ERROR_STATUS[result.error.code], row.expect.status);
      if (row.expect.field !== undefined) assert.equal(result.error.field, row.expect.field);
      const body = result.error.toBody();
      assert.equal(body.status, false);
      assert.equal(body.should_continue, false);
      assert.ok(body.message.length > 0);
    });
  }
});

describe('parseHopRequest: the request_id of an error body', () => {
  it('names the turn when its request_id is valid, so the client can tell which turn failed', () => {
    const result = parseHopRequest(validRequest({ hop: 0 }));
    assert.equal(result.success, false);
    if (!result.success) assert.equal(result.error.toBody().request_id, 'turn-1');
  });

  it('never echoes a request_id that breaks the id rules (too long, a slash, markup)', () => {
    for (const requestId of ['x'.repeat(129), 'turn/../other', '<script>']) {
      const result = parseHopRequest(validRequest({ request_id: requestId, hop: 0 }));
      assert.equal(result.success, false);
      if (!result.success) assert.equal(result.error.toBody().request_id, undefined, requestId);
    }
  });
});

describe('parseHopRequest: size limits', () => {
  it(`rejects a message over ${LIMITS.messageChars} characters, naming the message`, () => {
    const result = parseHopRequest(
      validRequest({ messages: [{ role: 'user', text: 'x'.repeat(LIMITS.messageChars + 1) }] }),
    );
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.equal(result.error.field, 'messages.0.text');
    }
  });

  it(`accepts a message of exactly ${LIMITS.messageChars} characters`, () => {
    const result = parseHopRequest(
      validRequest({ messages: [{ role: 'user', text: 'x'.repeat(LIMITS.messageChars) }] }),
    );
    assert.equal(result.success, true);
  });

  it(`rejects a layout over ${LIMITS.maxLayoutComponents} components, counted through slots`, () => {
    const leaves: ComponentNode[] = Array.from({ length: LIMITS.maxLayoutComponents }, (_, i) => ({
      uuid: `t${i}`,
      component: 'sdc.demo.text',
      props: { body: 'x' },
    }));
    const section: ComponentNode = { uuid: 's', component: 'sdc.demo.section', props: {}, slots: { content: leaves } };
    const result = parseHopRequest(
      validRequest({ context: { current_layout: { regions: { content: { components: [section] } } } } }),
    );
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.equal(result.error.field, 'context.current_layout');
      assert.match(result.error.message, /20001 components/);
    }
  });

  it('rejects JSON nested deeper than the limit without overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i += 1) deep = { d: deep };
    const result = parseHopRequest(validRequest({ context: { current_layout: { regions: {} }, extra: deep } }));
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.match(result.error.field ?? '', /^context\.extra(\.d)+$/);
      assert.equal(result.error.message, `The request: JSON nested deeper than 64 levels (at ${result.error.field}).`);
    }
  });
});

describe('parseHopRequest: how the limits are counted (spec §13)', () => {
  const fieldOf = (request: Record<string, unknown>) => {
    const result = parseHopRequest(request);
    return result.success ? 'accepted' : `${result.error.code} ${result.error.field}`;
  };
  /** A request `levels` deep: the top-level object is level 1, context 2, the arrays in extra 3 and on. */
  const nested = (levels: number) => {
    let value: unknown = 0;
    for (let level = 0; level < levels - 2; level += 1) value = [value];
    return validRequest({ context: { current_layout: { regions: {} }, extra: value } });
  };

  it('counts characters as Unicode code points: 20,000 emoji pass, 20,001 do not', () => {
    const emoji = (count: number) => validRequest({ messages: [{ role: 'user', text: '😀'.repeat(count) }] });
    assert.equal(fieldOf(emoji(LIMITS.messageChars)), 'accepted');
    assert.equal(fieldOf(emoji(LIMITS.messageChars + 1)), 'invalid_request messages.0.text');
  });

  it('counts the top-level object as level 1 and scalars as no level: 64 levels pass, 65 do not', () => {
    assert.equal(fieldOf(nested(LIMITS.maxJsonDepth)), 'accepted');
    const over = fieldOf(nested(LIMITS.maxJsonDepth + 1));
    assert.equal(over, `invalid_request context.extra${'.0'.repeat(LIMITS.maxJsonDepth + 1 - 3)}`);
  });

  it('counts every value outside the layout, the top-level object and context included, keys not', () => {
    // protocol, request_id, hop, messages ([{role, text}] = 4 values), context, page, selected_component, the root:
    // 11 values besides the array in extra and its items (current_layout and its regions are inside the layout).
    const withItems = (count: number) =>
      validRequest({
        context: {
          current_layout: { regions: {} },
          page: {},
          selected_component: null,
          extra: Array.from({ length: count }, () => 0),
        },
      });
    const room = LIMITS.maxJsonValuesOutsideLayout - 12;
    assert.equal(fieldOf(withItems(room)), 'accepted');
    assert.equal(fieldOf(withItems(room + 1)), `invalid_request context.extra.${room}`);
  });

  it('names the first problem in document order, and holds the bounds before it reads protocol', () => {
    const text = (extra: string, protocol = '"protocol":"canvas-ai/1",') =>
      `{${protocol}"request_id":"r","hop":1,"messages":[{"role":"user","text":"Hi"}],"context":{"current_layout":{"regions":{}},"extra":${extra}}}`;
    const field = (body: string) => {
      const result = parseHopRequestJson(body);
      return result.success ? 'accepted' : `${result.error.code} ${result.error.field}`;
    };
    assert.equal(field(text('{"a":{"__proto__":1},"__proto__":2}')), 'invalid_request context.extra.a.__proto__');
    // The bounds come with JSON, before protocol (spec §7): a server holds them on the bytes, before decoding.
    assert.equal(field(text('{"__proto__":1}', '')), 'invalid_request context.extra.__proto__');
    assert.equal(field(text('{"__proto__":1}', '"protocol":7,')), 'invalid_request context.extra.__proto__');
    assert.equal(field(text('{}', '')), 'missing_field protocol');
  });
});

describe('describeScanProblem: one wording for a request and for a tool call', () => {
  it('words each problem about its subject', () => {
    assert.equal(
      describeScanProblem('The request', { kind: 'forbidden_key', key: '__proto__', path: 'context.page.__proto__' }),
      'The request: the key "__proto__" is not allowed anywhere (at context.page.__proto__).',
    );
    assert.equal(
      describeScanProblem('The arguments of edit_components', { kind: 'too_many_values', limit: 5, path: 'a.4' }),
      'The arguments of edit_components: more than 5 JSON values (counted up to a.4); send less.',
    );
    assert.equal(
      describeScanProblem('The request', { kind: 'too_deep', limit: 64, path: 'context.extra' }),
      'The request: JSON nested deeper than 64 levels (at context.extra).',
    );
  });
});

describe('parseHopRequest: the value budget bounds validation work', () => {
  it(`rejects more than ${LIMITS.maxJsonValuesOutsideLayout} values outside the layout, naming where it stopped counting`, () => {
    const extra = Array.from({ length: LIMITS.maxJsonValuesOutsideLayout }, () => ({ a: 1 }));
    const result = parseHopRequest(validRequest({ context: { current_layout: { regions: {} }, extra } }));
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.match(result.error.field ?? '', /^context\.extra\.\d+/);
      assert.match(result.error.message, /more than 50000 JSON values/);
    }
  });

  it('lets the layout hold many more values than the rest of the request', () => {
    const components: ComponentNode[] = Array.from({ length: 5_000 }, (_, i) => ({
      uuid: `t${i}`,
      component: 'sdc.demo.text',
      props: { body: 'x', tags: Array.from({ length: 20 }, () => 'tag') },
    }));
    const result = parseHopRequest(
      validRequest({ context: { current_layout: { regions: { content: { components } } } } }),
    );
    assert.equal(result.success, true, result.success ? '' : result.error.message);
  });

  it(`rejects a request of more than ${LIMITS.maxJsonValues} values in all`, () => {
    const components: ComponentNode[] = Array.from({ length: 10_000 }, (_, i) => ({
      uuid: `t${i}`,
      component: 'sdc.demo.text',
      props: { body: 'x', numbers: Array.from({ length: 100 }, () => 1) },
    }));
    const result = parseHopRequest(
      validRequest({ context: { current_layout: { regions: { content: { components } } } } }),
    );
    assert.equal(result.success, false);
    if (!result.success) {
      assert.equal(result.error.code, 'invalid_request');
      assert.match(result.error.field ?? '', /^context\.current_layout\.regions\.content\.components\.\d+/);
    }
  });
});

describe('parseHopRequest: the tolerance rule', () => {
  it('ignores unknown fields at every level and returns them stripped', () => {
    const result = parseHopRequest(
      validRequest({
        future_field: { anything: true },
        context: { current_layout: { regions: { content: { components: [], color: 'red' } } }, theme: 'dark' },
      }),
    );
    assert.equal(result.success, true);
    if (result.success) {
      assert.equal('future_field' in result.data, false);
      assert.equal('theme' in result.data.context, false);
    }
  });

  it('fills the optional context fields with their defaults', () => {
    const result = parseHopRequest(validRequest());
    assert.equal(result.success, true);
    if (result.success) {
      assert.deepEqual(result.data.context.page, {});
      assert.equal(result.data.context.selected_component, null);
      assert.deepEqual(result.data.context.extra, {});
    }
  });

  it('does not require messages after hop 1 and accepts apply_results there', () => {
    const result = parseHopRequest(
      validRequest({
        hop: 2,
        messages: undefined,
        apply_results: [{ call_id: 'c1', status: 'rejected', reason: 'locked' }],
      }),
    );
    assert.equal(result.success, true);
  });

  it('keeps the request_id in the error when it is well-formed, so a client can correlate it', () => {
    const result = parseHopRequest(validRequest({ hop: 0 }));
    assert.equal(result.success, false);
    if (!result.success) assert.equal(result.error.toBody().request_id, 'turn-1');
  });

  it('leaves Object.prototype untouched after a __proto__ payload', () => {
    parseHopRequestJson('{"__proto__":{"polluted":true},"protocol":"canvas-ai/1"}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
