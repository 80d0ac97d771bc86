// `?agent-server=` takes only this page's origin or one on the build's allow-list
// (the second security review, G7); the page-level check is in cross-origin.test.ts.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { allowedAgentServer } from '../src/agent-server.js';

const PAGE = 'http://127.0.0.1:5173';

function choose(requested: string | null, allowList?: string): { server: string | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const server = allowedAgentServer(requested, PAGE, allowList, (message) => warnings.push(message));
  return { server, warnings };
}

describe('G7: the agent server a link may choose', () => {
  it('G7: takes no parameter as none, without a warning', () => {
    assert.deepEqual(choose(null), { server: undefined, warnings: [] });
    assert.deepEqual(choose(''), { server: undefined, warnings: [] });
  });

  it("G7: takes the page's own origin", () => {
    assert.deepEqual(choose(`${PAGE}/some/path`), { server: PAGE, warnings: [] });
  });

  it('G7: ignores any other origin when the build has no allow-list, and warns', () => {
    const { server, warnings } = choose('http://127.0.0.1:18990');
    assert.equal(server, undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /\?agent-server=http:\/\/127\.0\.0\.1:18990 is ignored/);
    assert.match(warnings[0]!, /VITE_AGENT_SERVERS/);
  });

  it('G7: takes an origin on the allow-list, and no other', () => {
    const list = 'https://agents.example.com, http://127.0.0.1:8787';
    assert.deepEqual(choose('https://agents.example.com/api', list), {
      server: 'https://agents.example.com',
      warnings: [],
    });
    assert.deepEqual(choose('http://127.0.0.1:8787', list), { server: 'http://127.0.0.1:8787', warnings: [] });
    for (const other of [
      'https://agents.example.com.evil.example',
      'http://agents.example.com',
      'http://127.0.0.1:8788',
    ]) {
      const { server, warnings } = choose(other, list);
      assert.equal(server, undefined, other);
      assert.equal(warnings.length, 1, other);
    }
  });

  it('G7: an entry ending in :* takes every port of its host, and only of that host', () => {
    const list = 'http://127.0.0.1:*';
    assert.equal(choose('http://127.0.0.1:18990', list).server, 'http://127.0.0.1:18990');
    assert.equal(choose('http://127.0.0.1', list).server, 'http://127.0.0.1');
    assert.equal(choose('http://127.0.0.10:80', list).server, undefined);
    assert.equal(choose('https://127.0.0.1:443', list).server, undefined);
    assert.equal(choose('http://localhost:18990', list).server, undefined);
  });

  it('G7: ignores what is not a URL, and warns', () => {
    const { server, warnings } = choose('javascript:alert(1)//');
    assert.equal(server, undefined);
    assert.equal(warnings.length, 1);
    assert.equal(choose('not a url').warnings.length, 1);
  });
});
