import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLIENT_CHECKS, loadConformanceInputs, planChecks } from '../src/index.js';
import { fillMustMatrix, matrixFigures, MUST_MATRIX, mustMatrixMarkdown, type MustRow } from '../src/must-matrix.js';
import { extractMusts, type MustStatement } from '../src/spec-musts.js';

// The MUST → check matrix: generated from the spec's MUST sentences, each with a kit check or a written reason.
const specDir = new URL('../../../spec/', import.meta.url);
const protocol = readFileSync(new URL('hop-protocol.md', specDir), 'utf8');
const conformance = readFileSync(new URL('conformance.md', specDir), 'utf8');
const statements: MustStatement[] = [
  ...extractMusts('hop-protocol.md', protocol),
  // Scripted mode's requirements; conformance.md §4's table restates the protocol's MUSTs and is not counted again.
  ...extractMusts('conformance.md', conformance).filter((statement) => statement.section === '3'),
];
const inputs = await loadConformanceInputs(2);
const plan = planChecks(2, { malformedRequests: inputs.malformedRequests, scenarios: inputs.fixtures!.scenarios });

const documentOf = (row: MustRow) => row.document ?? 'hop-protocol.md';
const matches = (row: MustRow, statement: MustStatement) =>
  documentOf(row) === statement.document && row.section === statement.section && statement.sentence.includes(row.says);

describe('the MUST → check matrix', () => {
  it('finds the MUST sentences of the spec', () => {
    assert.ok(statements.length >= 60, `only ${statements.length} MUST sentences found`);
    assert.ok(statements.every((statement) => /\bMUST\b/.test(statement.sentence)));
  });

  it('gives every MUST sentence exactly one row, and every row exactly one sentence', () => {
    const unaccounted = statements.filter((statement) => !MUST_MATRIX.some((row) => matches(row, statement)));
    assert.deepEqual(
      unaccounted.map((statement) => `${statement.document} §${statement.section}: ${statement.sentence}`),
      [],
      'MUSTs with neither a check nor a reason: add a row to packages/conformance/src/must-matrix.ts',
    );
    for (const statement of statements) {
      const rows = MUST_MATRIX.filter((row) => matches(row, statement));
      assert.equal(rows.length, 1, `§${statement.section} "${statement.sentence}" is matched by ${rows.length} rows`);
    }
    for (const row of MUST_MATRIX) {
      const found = statements.filter((statement) => matches(row, statement));
      assert.equal(found.length, 1, `row §${row.section} "${row.says}" matches ${found.length} MUST sentences`);
    }
  });

  it('gives every row either checks or a written reason, not both', () => {
    for (const row of MUST_MATRIX) {
      const checks = row.checks?.length ?? 0;
      const reason = row.reason?.trim().length ?? 0;
      assert.ok(checks > 0 !== reason > 0, `§${row.section} "${row.says}": give checks or a reason`);
    }
  });

  it('names only checks the kit has, each with its row in spec/conformance.md §4 (a server) or spec/conformance.md §7 (a client)', () => {
    const ids = new Set([
      ...plan.flatMap((check) => [check.id, check.family]),
      ...CLIENT_CHECKS.map((check) => check.id),
    ]);
    const families = new Map(plan.map((check) => [check.id, check.family]));
    for (const row of MUST_MATRIX) {
      for (const check of row.checks ?? []) {
        assert.ok(ids.has(check), `§${row.section}: no check ${check}`);
        const family = families.get(check) ?? check;
        assert.ok(conformance.includes(`| \`${family}\` |`), `${family} has no row in spec/conformance.md §4`);
      }
    }
  });

  it('is written, current, in spec/conformance.md §6 (pnpm spec rewrites it)', (t) => {
    const table = mustMatrixMarkdown(protocol);
    assert.ok(fillMustMatrix(conformance, table) === conformance, 'spec/conformance.md §6 is stale: run `pnpm spec`');
    const figures = matrixFigures();
    assert.equal(figures.statements, statements.length);
    t.diagnostic(
      `${figures.statements} MUST statements: ${figures.withChecks} with kit checks, ${figures.withReasons} with a written reason; ${figures.groups.length} rule groups with checks`,
    );
  });
});
