import type { Claim } from './claims.js';
import type { CheckContext } from './context.js';
import type { SpecRef } from './spec-refs.js';

/** Which checks run: 1 any server and any model; 2 adds the scenario fixtures, for a server in scripted mode. */
export type ConformanceLevel = 1 | 2;

/** What a check concluded. `skip` means it could not apply to this run (the why says what was missing). */
export type CheckStatus = 'pass' | 'fail' | 'skip';

/** A check's conclusion and the one sentence that explains it. */
export interface CheckVerdict {
  status: CheckStatus;
  why: string;
}

/**
 * One conformance check, as data: a stable id (`group.name`), the level that needs it, what it checks, the
 * section of spec/hop-protocol.md whose MUST it enforces, and how to run it.
 */
export interface ConformanceCheck {
  /** Stable id, `<group>.<name>`, e.g. `replay.same-response`; cited in spec/conformance.md. */
  id: string;
  /** `<group>.*` for the checks made one per row of a table or per scenario; else the id itself. */
  family: string;
  level: ConformanceLevel;
  /** What a passing server does, in one sentence. */
  title: string;
  spec: SpecRef;
  run(context: CheckContext): Promise<CheckVerdict>;
}

/** A check's outcome in a report. */
export interface CheckResult extends CheckVerdict {
  id: string;
  group: string;
  level: ConformanceLevel;
  title: string;
  /** `§8.2 Retries and replay` */
  spec: string;
  durationMs: number;
}

/** Everything one run found. */
export interface ConformanceReport {
  /** What was checked: a server (the default), or a client the kit served (spec/conformance.md §7). */
  subject?: 'server' | 'client';
  /** A server's hop endpoint, or a client's adapter command. */
  endpoint: string;
  /** A server's level; a client's run has none (it reads 1). */
  level: ConformanceLevel;
  /** The revision and optional parts the run held the server or client to. */
  claim?: Claim;
  /**
   * The groups of checks the claim leaves out, each with why and its check ids (not run, not in `results`), and for
   * a client the scenarios not played.
   */
  notClaimed?: Array<{ what: string; why: string; checks: string[]; scenarios?: string[] }>;
  results: CheckResult[];
  passed: number;
  failed: number;
  skipped: number;
}

/** A passing verdict. */
export const pass = (why: string): CheckVerdict => ({ status: 'pass', why });
/** A failing verdict. */
export const fail = (why: string): CheckVerdict => ({ status: 'fail', why });
/** A verdict for a check that does not apply to this run. */
export const skip = (why: string): CheckVerdict => ({ status: 'skip', why });

/** The group of a check id (`replay` for `replay.same-response`). */
export function groupOf(id: string): string {
  return id.slice(0, id.indexOf('.'));
}

/** Builds a check whose id is its own family (most checks). */
export function defineCheck(check: Omit<ConformanceCheck, 'family'> & { family?: string }): ConformanceCheck {
  return { family: check.id, ...check };
}

/** A row name or scenario id as the tail of a check id: lower case, runs of other characters become `-`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
