// The "did you mean" search for an unknown uuid is bounded in work (the second security review, G2): the
// shapes of the review, with the work counted in edit distances and table cells (never timed).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Layout } from '../src/index.js';
import { executeToolCalls, type ToolContext, type ToolDefinition, ToolInputError } from '../src/server.js';
import { builtinTools } from '../src/tools/builtin-tools.js';
import { editComponentsTool } from '../src/tools/edit-components.js';
import { moveComponentsTool } from '../src/tools/move-components.js';
import { placeComponentsTool } from '../src/tools/place-components.js';
import { removeComponentsTool } from '../src/tools/remove-components.js';
import { editDistanceWithin, MAX_SUGGESTION_EDITS, suggestionWork } from '../src/tools/suggest.js';
import { closestUuids, SuggestionBudget, UUID_SUGGESTION_LIMITS } from '../src/tools/uuid-suggestions.js';
import { catalog, contextOf, documentOf, pageFields } from './support/tools-fixtures.js';

/** A deterministic 128-character uuid per number (the SHA-512 of it in hex: like random ids, no shared prefix). */
function longUuid(n: number): string {
  return createHash('sha512').update(String(n)).digest('hex');
}

/** A page of `count` headings in `content` with 128-character uuids. */
function pageOf(count: number, uuid: (n: number) => string = longUuid): Layout {
  return {
    regions: {
      content: {
        components: Array.from({ length: count }, (_, n) => ({
          uuid: uuid(n),
          component: 'sdc.demo.heading',
          props: { text: `Heading ${n}` },
        })),
      },
    },
  };
}

/** The uuid with one character changed at `at`. */
function typo(uuid: string, at: number): string {
  return `${uuid.slice(0, at)}${uuid[at] === 'z' ? 'y' : 'z'}${uuid.slice(at + 1)}`;
}

/** The work `step` does, in counted units. */
async function workOf(step: () => unknown): Promise<{ distances: number; cells: number }> {
  const before = { ...suggestionWork };
  await step();
  return { distances: suggestionWork.distances - before.distances, cells: suggestionWork.cells - before.cells };
}

async function refusedWith(tool: ToolDefinition<never>, input: unknown, context: ToolContext): Promise<string> {
  try {
    await tool.execute(tool.input.parse(input) as never, context);
  } catch (error) {
    assert.ok(error instanceof ToolInputError, String(error));
    return error.message;
  }
  assert.fail('expected the call to be refused');
}

/** The most distance cells one search may fill: each compared candidate, a band of 2 × max + 1 per character. */
const CELLS_PER_SEARCH = UUID_SUGGESTION_LIMITS.compared * 2 * 128 * (2 * MAX_SUGGESTION_EDITS + 1);

const big = pageOf(20_000);
const bigContext = (): ToolContext => contextOf(documentOf(big));

describe('G2: the uuid suggestion search is bounded in work', () => {
  it('G2: computes the edit distance only within its band, and the same distance as the full table', () => {
    const pairs: Array<[string, string]> = [
      ['card-3', 'card-1'],
      ['kitten', 'sitting'],
      ['', 'abc'],
      ['section-1', 'sectoin-1'],
      [longUuid(1), typo(longUuid(1), 64)],
    ];
    const full = (a: string, b: string): number => {
      let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
      for (let i = 1; i <= a.length; i += 1) {
        const current = [i];
        for (let j = 1; j <= b.length; j += 1)
          current[j] = Math.min(
            previous[j]! + 1,
            current[j - 1]! + 1,
            previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
          );
        previous = current;
      }
      return previous[b.length]!;
    };
    for (const [a, b] of pairs) {
      const exact = full(a, b);
      assert.equal(editDistanceWithin(a, b, 16), Math.min(exact, 17), `${a} ~ ${b}`);
      assert.equal(editDistanceWithin(a, b, 1), Math.min(exact, 2), `${a} ~ ${b} within 1`);
    }
    // Two unrelated 128-character uuids: the band and the early exit keep it far below 128 × 128 cells.
    const work = { ...suggestionWork };
    assert.equal(editDistanceWithin(longUuid(1), longUuid(2), 4), 5);
    assert.ok(suggestionWork.cells - work.cells <= 128 * 9, `${suggestionWork.cells - work.cells} cells`);
  });

  it('G2: remove_components of a missing selected uuid on a 20,000-component page suggests the close one in bounded work', async () => {
    const close = longUuid(15_000);
    const selected = typo(close, 70);
    let message = '';
    const work = await workOf(async () => {
      message = await refusedWith(removeComponentsTool as ToolDefinition<never>, { uuids: [selected] }, bigContext());
    });
    assert.match(
      message,
      new RegExp(`no component with uuid \`${selected}\` in the layout; did you mean \`${close}\`\\?`),
    );
    assert.ok(work.distances <= UUID_SUGGESTION_LIMITS.compared * 2, `${work.distances} distances for 20,000 uuids`);
    assert.ok(work.cells <= CELLS_PER_SEARCH, `${work.cells} cells`);
  });

  it('G2: a uuid with nothing close on the page gets the plain message, in bounded work', async () => {
    const unknown = longUuid(99_999);
    let message = '';
    const work = await workOf(async () => {
      message = await refusedWith(removeComponentsTool as ToolDefinition<never>, { uuids: [unknown] }, bigContext());
    });
    assert.ok(message.includes(`no component with uuid \`${unknown}\` in the layout. Use the uuids`), message);
    assert.ok(work.distances <= UUID_SUGGESTION_LIMITS.compared * 2, `${work.distances} distances`);
  });

  it('G2: finds a close uuid whether the typo is at the start, in the middle or at the end', () => {
    for (const at of [0, 3, 40, 64, 100, 127]) {
      const close = longUuid(7_000 + at);
      assert.deepEqual(closestUuids(big, typo(close, at)), [close], `typo at ${at}`);
    }
    // A dropped character shifts the rest; the start or the end still leads to it.
    const close = longUuid(12_345);
    assert.deepEqual(closestUuids(big, close.slice(0, 50) + close.slice(51)), [close]);
    assert.deepEqual(closestUuids(big, close.toUpperCase()), [close], 'a uuid in the wrong case');
  });

  it('G2: suggests for the first unknown uuids of a call only: 50 unknown uuids on 1,000 components', async () => {
    const page = pageOf(1_000);
    const unknown = Array.from({ length: 50 }, (_, n) => typo(longUuid(n * 20), 60));
    let message = '';
    const work = await workOf(async () => {
      message = await refusedWith(
        removeComponentsTool as ToolDefinition<never>,
        { uuids: unknown },
        contextOf(documentOf(page)),
      );
    });
    const lines = message.split('\n').filter((line) => line.includes('no component with uuid'));
    assert.equal(lines.length, 50, 'every unknown uuid is named');
    const suggested = lines.filter((line) => line.includes('did you mean'));
    assert.equal(suggested.length, UUID_SUGGESTION_LIMITS.perCall);
    for (const [n, line] of suggested.entries())
      assert.ok(line.includes(`did you mean \`${longUuid(n * 20)}\`?`), line);
    assert.ok(
      work.distances <= UUID_SUGGESTION_LIMITS.perCall * UUID_SUGGESTION_LIMITS.compared * 2,
      `${work.distances} distances`,
    );
  });

  it('G2: bounds the suggestions of a whole hop: ten calls of 50 unknown uuids each share one pool', async () => {
    const page = pageOf(1_000);
    const calls = Array.from({ length: 10 }, (_, call) => ({
      id: `call_${call}`,
      name: 'remove_components',
      arguments: JSON.stringify({ uuids: Array.from({ length: 50 }, (_, n) => typo(longUuid(n), 10 + call)) }),
    }));
    let results: Awaited<ReturnType<typeof executeToolCalls>>['results'] = [];
    const work = await workOf(async () => {
      ({ results } = await executeToolCalls(calls, {
        tools: builtinTools,
        catalog,
        document: documentOf(page),
        pageFields,
        newUuid: () => 'new-1',
        declaredOutputs: ['remove_components'],
      }));
    });
    assert.ok(results.every((result) => !result.ok));
    const suggestions = results.reduce((sum, result) => sum + result.content.split('did you mean').length - 1, 0);
    assert.equal(suggestions, UUID_SUGGESTION_LIMITS.perHop);
    assert.ok(
      work.distances <= UUID_SUGGESTION_LIMITS.perHop * UUID_SUGGESTION_LIMITS.compared * 2,
      `${work.distances} distances`,
    );
  });

  it('G2: edit, move and placement targets suggest the close uuid on the 20,000-component page too', async () => {
    const close = longUuid(19_999);
    const wrong = typo(close, 5);
    const edit = await refusedWith(
      editComponentsTool as ToolDefinition<never>,
      { component_edits: `${wrong}:\n  text: Hi` },
      bigContext(),
    );
    assert.ok(edit.includes(`did you mean \`${close}\`?`), edit);
    const move = await refusedWith(
      moveComponentsTool as ToolDefinition<never>,
      { operations: [{ uuids: [longUuid(1)], target: 'content', placement: 'above', reference_uuid: wrong }] },
      bigContext(),
    );
    assert.ok(move.includes(`did you mean \`${close}\`?`), move);
    // A page with room for one more component, so that the placement reaches its layout checks.
    const almost = pageOf(19_999);
    const before = longUuid(19_998);
    const place = await refusedWith(
      placeComponentsTool as ToolDefinition<never>,
      {
        operations: [
          {
            target: 'content',
            placement: 'below',
            reference_uuid: typo(before, 120),
            components: '- sdc.demo.text: {props: {body: Hi}}',
          },
        ],
      },
      contextOf(documentOf(almost)),
    );
    assert.ok(place.includes(`did you mean \`${before}\`?`), place);
  });

  it('G2: a budget gives no suggestion past its call cap', () => {
    const budget = new SuggestionBudget();
    const taken = Array.from({ length: UUID_SUGGESTION_LIMITS.perCall + 3 }, () => budget.take());
    assert.deepEqual(
      taken,
      taken.map((_, n) => n < UUID_SUGGESTION_LIMITS.perCall),
    );
  });
});
