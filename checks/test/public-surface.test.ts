// Every name an entry point exports is public API: adding, removing or turning a value into a type must be a
// reviewed line in checks/public-surface.txt, not a side effect of an edit somewhere inside a package.
import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeSurface, publishedEntries, REPO_ROOT, SURFACE_FILE, UPDATE_COMMAND } from '../src/public-surface.js';

describe('public surface', () => {
  it('lists every published entry point, from package.json exports', async () => {
    const specifiers = (await publishedEntries()).map((entry) => entry.specifier);
    for (const expected of [
      '@canvas-ai/protocol',
      '@canvas-ai/protocol/server',
      '@canvas-ai/conformance',
      '@canvas-ai/widget/loop',
      '@canvas-ai/reference-server/mock/browser',
    ]) {
      assert.ok(specifiers.includes(expected), `${expected} is among ${specifiers.join(', ')}`);
    }
  });

  it(`matches ${SURFACE_FILE}`, async () => {
    const pinned = await readFile(join(REPO_ROOT, SURFACE_FILE), 'utf8');
    const current = await describeSurface();
    const added = difference(namedLines(current), namedLines(pinned)).map((line) => `+ ${line}`);
    const removed = difference(namedLines(pinned), namedLines(current)).map((line) => `- ${line}`);
    assert.ok(
      current === pinned,
      [
        `the exported names changed; if that is intended, run \`${UPDATE_COMMAND}\` and commit ${SURFACE_FILE}`,
        ...removed,
        ...added,
      ].join('\n'),
    );
  });
});

/** Each name line prefixed with its entry (`@canvas-ai/protocol/server: value readBody`), so a diff names both. */
function namedLines(surface: string): string[] {
  let entry = '';
  const lines: string[] = [];
  for (const line of surface.split('\n')) {
    if (line.startsWith('## ')) entry = line.slice(3).split(' ')[0] ?? '';
    else if (line !== '' && !line.startsWith('#')) lines.push(`${entry}: ${line.replace(/ +/, ' ')}`);
  }
  return lines;
}

function difference(left: readonly string[], right: readonly string[]): string[] {
  const others = new Set(right);
  return left.filter((line) => !others.has(line));
}
