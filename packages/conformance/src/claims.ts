import type { Scenario } from '@canvas-ai/protocol/scenario';
import type { ConformanceLevel } from './check.js';

/**
 * What a server claims (spec §14.1): the revision of `canvas-ai/1` it speaks and the optional parts it has. The kit
 * runs the checks of what is claimed, skips the rest with one line per group, and says what passed in one line.
 */
export const REVISIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8'] as const;
export type Revision = (typeof REVISIONS)[number];
/** The newest revision this kit checks (spec §14: the kit checks the newest revision its package speaks). */
export const NEWEST_REVISION: Revision = '1.8';

/** The optional parts of the protocol a server may leave out and still conform, each with the revision that added it. */
const OPTIONAL_PARTS = {
  streaming: { label: 'streaming', since: '1.4', what: 'streamed hops (spec §6.1)' },
  'remove-move': {
    label: 'remove/move',
    since: '1.2',
    what: 'the remove_components and move_components outputs (spec §11.4, §11.5)',
  },
  questions: { label: 'questions', since: '1.7', what: 'waiting turns and questions (spec §20)' },
  screenshots: { label: 'screenshots', since: '1.8', what: 'a look at the page (spec §20.3)' },
  plans: { label: 'plans', since: '1.8', what: 'plans (spec §20.4)' },
  approvals: { label: 'approvals', since: '1.8', what: 'approval of destructive changes (spec §20.5)' },
} as const satisfies Record<string, { label: string; since: Revision; what: string }>;
export type OptionalPart = keyof typeof OPTIONAL_PARTS;
export const PART_NAMES = Object.keys(OPTIONAL_PARTS) as OptionalPart[];

/** What a server or a client claims. */
export interface Claim {
  revision: Revision;
  parts: readonly OptionalPart[];
}

/** The default claim: the newest revision with every optional part. */
export const FULL_CLAIM: Claim = { revision: NEWEST_REVISION, parts: PART_NAMES };

/** What a check needs claimed: the revision that added its rule, and the optional part it belongs to. */
export interface CheckNeeds {
  since: Revision;
  part?: OptionalPart;
  /** The group its skip line names, e.g. `streamed hops (spec §6.1)`. */
  what: string;
}

/**
 * The checks of rules added after revision 1.0, by id prefix (first match wins; any other check is a 1.0 rule or a
 * clarification of one). The scenario checks of scenarios that declare remove or move need that part too.
 */
const CHECK_CLAIMS: ReadonlyArray<readonly [prefix: string, needs: CheckNeeds]> = [
  // Every server answers JSON to a hop that does not ask for a stream, one that never streams included.
  ['stream.json-without-accept', { since: '1.0', what: 'revision 1.0' }],
  ['stream.', { since: '1.4', part: 'streaming', what: OPTIONAL_PARTS.streaming.what }],
  ['tools.remove-', { since: '1.2', part: 'remove-move', what: OPTIONAL_PARTS['remove-move'].what }],
  ['tools.move-', { since: '1.2', part: 'remove-move', what: OPTIONAL_PARTS['remove-move'].what }],
  ['waits.plan-', { since: '1.8', part: 'plans', what: OPTIONAL_PARTS.plans.what }],
  ['scenario.plan-', { since: '1.8', part: 'plans', what: OPTIONAL_PARTS.plans.what }],
  ['waits.', { since: '1.7', part: 'questions', what: OPTIONAL_PARTS.questions.what }],
  ['scenario.question-', { since: '1.7', part: 'questions', what: OPTIONAL_PARTS.questions.what }],
  ['screenshots.', { since: '1.8', part: 'screenshots', what: OPTIONAL_PARTS.screenshots.what }],
  ['scenario.screenshot-', { since: '1.8', part: 'screenshots', what: OPTIONAL_PARTS.screenshots.what }],
  ['approvals.', { since: '1.8', part: 'approvals', what: OPTIONAL_PARTS.approvals.what }],
  ['scenario.approval-', { since: '1.8', part: 'approvals', what: OPTIONAL_PARTS.approvals.what }],
  ['tools.derived-', { since: '1.6', what: 'derived props (spec §10.1, revision 1.6)' }],
  ['scenario.derived-', { since: '1.6', what: 'derived props (spec §10.1, revision 1.6)' }],
  ['agents.', { since: '1.5', what: "the agents' ETag (spec §3.1, revision 1.5)" }],
  ['trace.', { since: '1.4', what: 'trace context (spec §4.7, revision 1.4)' }],
  ['invariants.usage-sums', { since: '1.4', what: 'usage (spec §6.2, revision 1.4)' }],
  ['hosts.', { since: '1.3', what: 'hosts (spec §4.5, revision 1.3)' }],
  ['quotas.', { since: '1.3', what: 'quotas (spec §8.8, revision 1.3)' }],
  ['origin.', { since: '1.3', what: 'origins (spec §4.5, revision 1.3)' }],
  ['cors.', { since: '1.3', what: 'clients on another origin (spec §4.6, revision 1.3)' }],
  ['status.', { since: '1.2', what: 'the turn status (spec §8.6, revision 1.2)' }],
  ['schemas.status-responses', { since: '1.2', what: 'the turn status (spec §8.6, revision 1.2)' }],
  ['capabilities.', { since: '1.2', what: 'capabilities (spec §5.1, revision 1.2)' }],
  ['coediting.', { since: '1.1', what: 'co-editing (spec §16, revision 1.1)' }],
  ['scenario.coedit-', { since: '1.1', what: 'co-editing (spec §16, revision 1.1)' }],
  ['hop-rules.final-no-outputs', { since: '1.1', what: 'co-editing (spec §16, revision 1.1)' }],
  ['invariants.final-no-outputs', { since: '1.1', what: 'co-editing (spec §16, revision 1.1)' }],
];

/** What a scenario needs claimed: remove/move when it declares those outputs, else what its check id says. */
export function scenarioNeeds(scenario: Scenario): CheckNeeds {
  // A scenario of proposed changes belongs to the approvals part (spec §20.5).
  if (scenario.capabilities?.waits.includes('approval')) return needsOf(`scenario.${scenario.id}`);
  const outputs = scenario.capabilities?.outputs ?? [];
  if (outputs.includes('remove_components') || outputs.includes('move_components'))
    return { since: '1.2', part: 'remove-move', what: OPTIONAL_PARTS['remove-move'].what };
  return needsOf(`scenario.${scenario.id}`);
}

/** What a check needs claimed, by its id. */
export function needsOf(id: string): CheckNeeds {
  return CHECK_CLAIMS.find(([prefix]) => id.startsWith(prefix))?.[1] ?? { since: '1.0', what: 'revision 1.0' };
}

/** Who a claim is of, as the skip lines name it. */
export type Claimant = 'server' | 'client';

/** Why `needs` is outside `claim`, or undefined when the claim covers it. */
export function unclaimed(needs: CheckNeeds, claim: Claim, claimant: Claimant = 'server'): string | undefined {
  if (REVISIONS.indexOf(needs.since) > REVISIONS.indexOf(claim.revision))
    return `revision ${needs.since}; the ${claimant} claims ${claim.revision} (--revision)`;
  if (needs.part !== undefined && !claim.parts.includes(needs.part))
    return `the optional part ${needs.part}, which the ${claimant} does not claim (--parts)`;
  return undefined;
}

/** The checks of a plan the claim leaves out, one entry per group of rules, each with its checks. */
export function skippedByClaim<Check extends { id: string }>(
  plan: readonly Check[],
  claim: Claim,
  needs: (check: Check) => CheckNeeds,
  claimant: Claimant = 'server',
): Array<{ what: string; why: string; checks: string[] }> {
  const groups = new Map<string, { what: string; why: string; checks: string[] }>();
  for (const check of plan) {
    const need = needs(check);
    const why = unclaimed(need, claim, claimant);
    if (why === undefined) continue;
    const group = groups.get(need.what) ?? { what: need.what, why, checks: [] };
    group.checks.push(check.id);
    groups.set(need.what, group);
  }
  return [...groups.values()];
}

/** The labels of the claimed parts, in the kit's order (`streaming`, `remove/move`, `questions`, `screenshots`, `plans`). */
function partLabels(parts: readonly OptionalPart[]): string[] {
  return PART_NAMES.filter((part) => parts.includes(part)).map((part) => OPTIONAL_PARTS[part].label);
}

/**
 * The line a project pastes into its README, e.g. `canvas-ai/1 revision 1.8: level 2, streaming, remove/move,
 * questions, screenshots, plans`.
 */
export function claimLine(claim: Claim, level: ConformanceLevel): string {
  return `canvas-ai/1 revision ${claim.revision}: ${[`level ${level}`, ...partLabels(claim.parts)].join(', ')}`;
}

/**
 * A client's line for its README, e.g. `canvas-ai/1 revision 1.8 client: streaming`: a client has no levels, and
 * names only the parts the client kit played (`parts`, the claimed ones it has scenarios of).
 */
export function clientClaimLine(claim: Claim): string {
  const parts = partLabels(claim.parts);
  return `canvas-ai/1 revision ${claim.revision} client${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

/** What the client kit's scenarios and checks of each optional part need claimed (spec/conformance.md §7). */
export function partNeeds(part: OptionalPart): CheckNeeds {
  return { since: OPTIONAL_PARTS[part].since, part, what: OPTIONAL_PARTS[part].what };
}
