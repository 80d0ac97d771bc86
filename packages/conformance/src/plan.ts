import type { MalformedRequestCase } from '@canvas-ai/protocol/scenario';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import type { ConformanceCheck, ConformanceLevel } from './check.js';
import { cancelChecks } from './checks/cancel.js';
import { quotaChecks } from './checks/quotas.js';
import { attachmentChecks } from './checks/attachments.js';
import { capabilityChecks } from './checks/capabilities.js';
import { corsChecks } from './checks/cors.js';
import { hostChecks } from './checks/hosts.js';
import { csrfChecks } from './checks/csrf.js';
import { doorChecks } from './checks/door.js';
import { invariantChecks } from './checks/invariants.js';
import { limitChecks } from './checks/limits.js';
import { replayChecks } from './checks/replay.js';
import { scenarioChecks } from './checks/scenarios.js';
import { agentsChecks } from './checks/agents.js';
import { schemaChecks } from './checks/schemas.js';
import { statusChecks } from './checks/status.js';
import { streamChecks } from './checks/stream.js';
import { scriptedChecks } from './checks/scripted.js';
import { toolChecks } from './checks/tools.js';
import { traceContextChecks } from './checks/trace-context.js';
import { turnRuleChecks } from './checks/turn-rules.js';
import { validationChecks } from './checks/validation.js';
import { waitChecks } from './checks/waits.js';
import { screenshotChecks } from './checks/screenshots.js';
import { planWaitChecks } from './checks/plan-waits.js';
import { approvalChecks } from './checks/approvals.js';

/** What the plan is made from: the malformed-request table and, for level 2, the scenarios. */
export interface PlanInputs {
  malformedRequests: readonly MalformedRequestCase[];
  scenarios: readonly Scenario[];
}

/**
 * Every check of a level, in the order they run: the door first, then the turn for the prompt, the turn rules,
 * the scenarios (level 2), and the schema checks last, because they judge every response received before them.
 */
export function planChecks(level: ConformanceLevel, inputs: PlanInputs): ConformanceCheck[] {
  const all = [
    ...validationChecks(inputs.malformedRequests),
    ...doorChecks,
    ...limitChecks,
    ...attachmentChecks,
    ...csrfChecks,
    ...hostChecks,
    ...corsChecks,
    ...traceContextChecks,
    ...invariantChecks,
    ...replayChecks,
    ...turnRuleChecks,
    ...cancelChecks,
    ...quotaChecks,
    ...statusChecks,
    ...scenarioChecks(inputs.scenarios),
    ...toolChecks,
    ...capabilityChecks,
    ...waitChecks,
    ...screenshotChecks,
    ...planWaitChecks,
    ...approvalChecks,
    ...scriptedChecks,
    ...streamChecks,
    ...agentsChecks,
    ...schemaChecks,
  ];
  return all.filter((check) => check.level <= level);
}
