import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONFORMANCE_FLAGS } from '../src/cli-args.js';
import { loadConformanceInputs, planChecks } from '../src/index.js';
import { SPEC_SECTIONS, specLink } from '../src/spec-refs.js';
import { MAX_TURN_REQUESTS } from '@canvas-ai/protocol';

// spec/conformance.md maps every check to the rule it enforces: these tests keep that map, the section links and
// the options table in step with the kit.
const specDir = new URL('../../../spec/', import.meta.url);
const doc = readFileSync(new URL('conformance.md', specDir), 'utf8');
const protocol = readFileSync(new URL('hop-protocol.md', specDir), 'utf8');
const inputs = await loadConformanceInputs(2);
const plan = planChecks(2, { malformedRequests: inputs.malformedRequests, scenarios: inputs.fixtures!.scenarios });

/** GitHub's anchor of a markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}
const anchors = (markdown: string) =>
  new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

/** The rows of the checks table: the family each names, and the whole row. */
const tableRows = doc
  .split('\n')
  .filter((line) => /^\| `[a-z-]+\.[a-z0-9.*-]+` \| [12] \|/.test(line))
  .map((line) => ({
    family: /^\| `([^`]+)`/.exec(line)![1]!,
    level: Number(/^\| `[^`]+` \| ([12]) \|/.exec(line)![1]),
    line,
  }));

describe('spec/conformance.md', () => {
  it('links every section a check enforces to a real heading of spec/hop-protocol.md', () => {
    const headings = anchors(protocol);
    for (const [key, section] of Object.entries(SPEC_SECTIONS))
      assert.ok(headings.has(section.anchor), `${key}: #${section.anchor} is not a heading`);
  });

  it('has one row per check (or per family of checks) with its level and the link of its section', () => {
    const families = [...new Set(plan.map((check) => check.family))];
    for (const family of families) {
      const row = tableRows.find((candidate) => candidate.family === family);
      assert.ok(row, `no row for ${family}`);
      const members = plan.filter((check) => check.family === family);
      assert.equal(row.level, members[0]!.level, `${family}: level`);
      for (const check of members)
        assert.ok(
          row.line.includes(`(${specLink(check.spec.section)})`),
          `${check.id}: the row does not link ${specLink(check.spec.section)}`,
        );
    }
    assert.deepEqual(
      tableRows.map((row) => row.family),
      families,
      'the rows name exactly the checks, in run order',
    );
  });

  it("states the kit's bound on the prompt turn: max_hops + 2 hops of the largest max_hops", () => {
    const row = tableRows.find((candidate) => candidate.family === 'invariants.turn-completes');
    assert.ok(row, 'no row for invariants.turn-completes');
    assert.ok(row.line.includes(`within ${MAX_TURN_REQUESTS} hops.`), row.line);
  });

  it('documents every flag of the CLI', () => {
    for (const [name, flag] of Object.entries(CONFORMANCE_FLAGS)) {
      assert.ok(
        doc.includes(`| \`--${name}${'value' in flag ? ` ${flag.value.replace('|', '\\|')}` : ''}\` |`),
        `--${name} is not in the options table`,
      );
    }
  });

  it('has no broken link: anchors exist, files exist', () => {
    const own = anchors(doc);
    const theirs = anchors(protocol);
    for (const [, target] of doc.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      if (path === '') assert.ok(own.has(anchor!), `#${anchor} is not a heading of conformance.md`);
      else {
        assert.ok(existsSync(new URL(path, specDir)), `${path} does not exist`);
        if (anchor !== undefined && path === 'hop-protocol.md')
          assert.ok(theirs.has(anchor), `hop-protocol.md#${anchor} is not a heading`);
      }
    }
  });
});
