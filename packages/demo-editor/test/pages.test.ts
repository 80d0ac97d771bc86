// The demo has two pages, the same editor against the real server (index.html) and against the mock in the page
// (mock.html). Vite builds each page from its own HTML file, so both files carry the editor's markup; this keeps them
// from drifting: they differ in their title and their entry script, and in nothing else.
import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

const page = async (name: string) => (await readFile(new URL(`../${name}`, import.meta.url), 'utf8')).split('\n');

describe('the two demo pages', () => {
  it('index.html and mock.html differ only in their title and entry script', async () => {
    const [real, mock] = await Promise.all([page('index.html'), page('mock.html')]);
    assert.equal(real.length, mock.length, 'the same number of lines');
    const differing = real.flatMap((line, at) => (line === mock[at] ? [] : [`${line.trim()} ≠ ${mock[at]?.trim()}`]));
    assert.deepEqual(differing, [
      '<title>Canvas AI — demo editor</title> ≠ <title>Canvas AI — demo editor (no server: the mock)</title>',
      '<script type="module" src="/src/main.ts"></script> ≠ <script type="module" src="/src/mock-main.ts"></script>',
    ]);
  });
});
