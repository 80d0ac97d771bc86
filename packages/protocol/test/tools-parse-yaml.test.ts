import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseYamlData } from '../src/server.js';
import { YAML_LIMITS } from '../src/tools/parse-yaml.js';
import { placeComponentsTool } from '../src/tools/place-components.js';
import { contextOf, documentOf, emptyLayout, refusal } from './support/tools-fixtures.js';

/** A "billion laughs" document: nine levels of nine aliases, 9^9 strings if fully expanded. */
function aliasBomb(): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let level = 1; level <= 9; level += 1) {
    const previous = `*a${level - 1}`;
    lines.push(`a${level}: &a${level} [${Array(9).fill(previous).join(', ')}]`);
  }
  return lines.join('\n');
}

function refused(text: string): string {
  const result = parseYamlData(text, 'components');
  assert.equal(result.ok, false, `expected a refusal for ${JSON.stringify(text.slice(0, 60))}`);
  return result.ok ? '' : result.message;
}

describe('parseYamlData', () => {
  it('returns plain JSON data for ordinary YAML', () => {
    assert.deepEqual(parseYamlData('- a: {n: 1, ok: true, none: ~, list: [x, "y"]}', 'f'), {
      ok: true,
      value: [{ a: { n: 1, ok: true, none: null, list: ['x', 'y'] } }],
    });
  });

  it('keeps keys as written, even when they look like numbers', () => {
    assert.deepEqual(parseYamlData('1e5: x\n007: y', 'f'), { ok: true, value: { '1e5': 'x', '007': 'y' } });
  });

  it('refuses an alias bomb instead of expanding it', () => {
    assert.match(refused(aliasBomb()), /could not be read: Excessive alias count.*without YAML anchors and aliases/);
  });

  it('still accepts a few aliases within the budget', () => {
    const result = parseYamlData('base: &b {src: a.png, alt: A}\none: *b\ntwo: *b', 'f');
    assert.equal(result.ok, true);
  });

  it('refuses text longer than the length cap before parsing it', () => {
    const long = `- sdc.demo.text: {props: {body: "${'x'.repeat(YAML_LIMITS.maxChars)}"}}`;
    assert.match(refused(long), new RegExp(`is ${long.length} characters long; at most ${YAML_LIMITS.maxChars}`));
  });

  it('refuses YAML that does not parse, with line and column', () => {
    assert.match(refused('a: [1, 2'), /`components` is not valid YAML \(line 1, column \d+\)/);
  });

  it('refuses duplicate keys, several documents and complex keys', () => {
    assert.match(refused('a: 1\na: 2'), /Map keys must be unique/);
    assert.match(refused('- a\n---\n- b'), /multiple documents/);
    assert.match(refused('? [a, b]\n: c'), /keys must be strings/);
  });

  it('accepts only plain data: no timestamps, sets, binary, unknown tags or non-finite numbers', () => {
    assert.match(refused('a: !!timestamp 2001-12-14'), /a is a Date \(YAML tags such as/);
    assert.match(refused('a: !!set {x}'), /a is a Set/);
    assert.match(refused('a: !!binary aGVsbG8='), /a is a (Buffer|Uint8Array)/);
    assert.match(refused('a: !custom x'), /Unresolved tag: !custom/);
    assert.match(refused('a: [.inf]'), /a\[0\] is Infinity, which is not a JSON number/);
    assert.match(refused('a: .nan'), /a is NaN/);
  });

  it('refuses the prototype-polluting keys anywhere', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      assert.match(
        refused(`- x: {props: {${key}: 1}}`),
        new RegExp(`the key \`${key}\` is not allowed \\(at \\(root\\)\\[0\\]\\.x\\.props\\)`),
      );
    }
  });

  it('refuses nesting deeper than the JSON depth limit', () => {
    const deep = `${'['.repeat(YAML_LIMITS.maxDepth + 1)}${']'.repeat(YAML_LIMITS.maxDepth + 1)}`;
    assert.match(refused(deep), new RegExp(`nests deeper than ${YAML_LIMITS.maxDepth} levels`));
  });
});

describe('parseYamlData on hostile nesting', () => {
  const hostile = {
    'block sequences': `${'- '.repeat(1_000)}x`,
    'flow sequences': `${'['.repeat(2_000)}x${']'.repeat(2_000)}`,
    'flow maps': `${'{a: '.repeat(1_000)}x${'}'.repeat(1_000)}`,
    'block maps': `${Array.from({ length: 250 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} x`,
  };

  it('refuses nesting past the limit before the (recursive) composer runs: the readable depth message, not a stack overflow', () => {
    for (const [name, text] of Object.entries(hostile)) {
      assert.ok(text.length < YAML_LIMITS.maxChars, name);
      assert.match(refused(text), /nests deeper than 64 levels/, name);
    }
  });

  it('still reads nesting within the limit', () => {
    const deep = `${'['.repeat(60)}x${']'.repeat(60)}`;
    const result = parseYamlData(deep, 'f');
    assert.equal(result.ok, true, result.ok ? '' : result.message);
  });

  it('survives twice in a fresh process, which has compiled none of the parser yet', async () => {
    // In such a process the second overflow aborted Node (a regexp compiled at the stack limit).
    const script = [
      "import { parseYamlData } from './src/tools/parse-yaml.ts';",
      `const text = ${JSON.stringify(hostile['block sequences'])};`,
      "for (let i = 0; i < 2; i += 1) { const r = parseYamlData(text, 'components'); console.log(r.ok ? 'ok' : r.message); }",
    ].join('\n');
    const { execFile } = await import('node:child_process');
    const output = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: new URL('..', import.meta.url), timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
      child.stdin?.end();
    });
    assert.equal(output.code, 0, output.stdout);
    const lines = output.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, /nests deeper than 64 levels/);
  });
});

describe('the YAML guards inside the tools', () => {
  it('place_components answers an alias bomb with a readable refusal', async () => {
    const components = `${aliasBomb()}\nlist:\n  - sdc.demo.text: {props: {body: *a9}}`;
    await refusal(
      placeComponentsTool,
      { operations: [{ target: 'content', placement: 'inside', components }] },
      ['place_components was not applied: `operations[0].components` could not be read: Excessive alias count'],
      contextOf(documentOf(emptyLayout)),
    );
  });
});
