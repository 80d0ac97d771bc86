import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { MalformedRequestCase } from '@canvas-ai/protocol/scenario';
import {
  fail,
  groupOf,
  type CheckResult,
  type CheckVerdict,
  type ConformanceCheck,
  type ConformanceLevel,
  type ConformanceReport,
} from './check.js';
import { type Claim, FULL_CLAIM, needsOf, scenarioNeeds, skippedByClaim, unclaimed } from './claims.js';
import { createContext } from './context.js';
import { describeError } from './describe-error.js';
import { ConformanceClient } from './http-client.js';
import { loadConformanceInputs, type InputFolders } from './load-inputs.js';
import { planChecks } from './plan.js';
import { describeSpecRef } from './spec-refs.js';

/** What {@link runConformance} checks, and where. Only `endpoint` is required. */
export interface ConformanceOptions extends InputFolders {
  /** The hop endpoint, e.g. `http://127.0.0.1:8787/api/hop`. */
  endpoint: string;
  /** The CSRF token endpoint; give it when the server checks `X-CSRF-Token`. */
  tokenEndpoint?: string;
  agentsEndpoint?: string;
  /** 1 (default): any server, any model. 2: also the scenario fixtures, for a server in scripted mode. */
  level?: ConformanceLevel;
  /** The message of the level-1 turn. Default "Hello". */
  prompt?: string;
  /** Copies of one hop sent at once by the concurrency check. Default 8. */
  burst?: number;
  /** Most milliseconds one request may take. Default 120,000. */
  timeoutMs?: number;
  /**
   * The turns the server lets one session run at once (spec §8.8; the reference server: 32). Given, level 2 drives a
   * fresh session to it (`quotas.session-turns`); else that check is skipped.
   */
  sessionTurns?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** The malformed-request table and fixtures as data, instead of reading them from the folders. */
  inputs?: { malformedRequests: MalformedRequestCase[]; fixtures?: Fixtures };
  /** The revision and optional parts the server claims (default: the newest revision with every part). */
  claim?: Claim;
  /** Runs only the checks it keeps (the schema checks then judge fewer responses). */
  filter?: (check: ConformanceCheck) => boolean;
  /** Called with each result as soon as its check has run. */
  onResult?: (result: CheckResult) => void;
}

/**
 * Runs the conformance checks of a level against a server and reports each one. It never throws for what the server
 * does (a check that cannot reach it fails); it throws only when the fixtures cannot be read.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const level = options.level ?? 1;
  const claim = options.claim ?? FULL_CLAIM;
  const loaded = options.inputs ?? (await loadConformanceInputs(level, options));
  if (level === 2 && loaded.fixtures === undefined) throw new Error('level 2 needs the scenario fixtures');
  const scenarios = loaded.fixtures?.scenarios ?? [];
  const needs = (check: ConformanceCheck) => {
    const scenario = scenarios.find((candidate) => check.id === `scenario.${candidate.id}`);
    return scenario ? scenarioNeeds(scenario) : needsOf(check.id);
  };
  const notClaimed = skippedByClaim(
    planChecks(level, { malformedRequests: loaded.malformedRequests, scenarios }),
    claim,
    needs,
  );
  // The scenarios of what is not claimed are not played at all: the rules judged on every run would meet them.
  const inputs = {
    ...loaded,
    fixtures: loaded.fixtures && {
      ...loaded.fixtures,
      scenarios: scenarios.filter((scenario) => unclaimed(scenarioNeeds(scenario), claim) === undefined),
    },
  };
  const client = new ConformanceClient({
    endpoint: options.endpoint,
    tokenEndpoint: options.tokenEndpoint,
    agentsEndpoint: options.agentsEndpoint,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  });
  const context = createContext({
    client,
    level,
    prompt: options.prompt ?? 'Hello',
    malformedRequests: inputs.malformedRequests,
    fixtures: inputs.fixtures,
    burst: options.burst ?? 8,
    timeoutMs: options.timeoutMs ?? 120_000,
    sessionTurns: options.sessionTurns,
  });
  const plan = planChecks(level, {
    malformedRequests: inputs.malformedRequests,
    scenarios: inputs.fixtures?.scenarios ?? [],
  });
  const results: CheckResult[] = [];
  const claimed = (check: ConformanceCheck) => unclaimed(needs(check), claim) === undefined;
  for (const check of plan.filter(claimed).filter(options.filter ?? (() => true))) {
    const started = performance.now();
    let verdict: CheckVerdict;
    try {
      verdict = await check.run(context);
    } catch (error) {
      verdict = fail(describeError(error, options.timeoutMs ?? 120_000));
    }
    const result: CheckResult = {
      id: check.id,
      group: groupOf(check.id),
      level: check.level,
      title: check.title,
      spec: describeSpecRef(check.spec),
      ...verdict,
      durationMs: Math.round(performance.now() - started),
    };
    results.push(result);
    options.onResult?.(result);
  }
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  return {
    endpoint: options.endpoint,
    level,
    claim,
    notClaimed,
    results,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
  };
}
