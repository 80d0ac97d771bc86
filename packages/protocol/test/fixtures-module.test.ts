// The repository's fixtures as a data module for pages (@canvas-ai/protocol/fixtures): fresh, and validated.
import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fixturesFromData, repositoryFixtures } from '../src/fixtures-module/index.js';
import { FIXTURES_MODULE_PATH, fixturesModuleText, loadFixtures } from '../src/node/index.js';

describe('@canvas-ai/protocol/fixtures', () => {
  it('is the committed text of fixtures/ (run `pnpm --filter @canvas-ai/protocol fixtures` when it is stale)', async () => {
    const committed = await readFile(new URL(`../${FIXTURES_MODULE_PATH}`, import.meta.url), 'utf8');
    assert.equal(committed, fixturesModuleText(await loadFixtures()));
  });

  it('holds what the Node loader reads, attachments aside', async () => {
    const { catalog, agents, layouts, scenarios } = await loadFixtures();
    assert.deepEqual(repositoryFixtures, { catalog, agents, layouts, scenarios });
  });

  it('refuses data that breaks the schemas, naming the field', () => {
    const broken = { ...repositoryFixtures, scenarios: [{ ...repositoryFixtures.scenarios[0], hops: 'none' }] };
    assert.throws(() => fixturesFromData(broken), /hops/);
  });
});
