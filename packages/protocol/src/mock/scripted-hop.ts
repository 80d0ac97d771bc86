import type { AgentDefinition, AgentsConfig } from '../config/agents-config.js';
import type { Catalog } from '../config/catalog.js';
import { noScenarioAnswer, scenarioMessagesFor } from '../scenario/match-scenario.js';
import type { Scenario } from '../scenario/scenario.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { answerResponse, continuingResponse, maxHopsResponse, type HopResponseHead } from '../turn/hop-response.js';
import type { HopRequest } from '../wire/hop-request.js';
import type { HopResponse } from '../wire/hop-response.js';
import type { ToolOutput } from '../wire/outputs.js';
import { scriptedDecision } from './scripted-model.js';
import type { ScriptedTurn } from './turns.js';

/** What a scripted hop runs with: the data `createHandlers` was given. */
export interface ScriptedHopSetup {
  catalog: Catalog;
  agents: AgentsConfig;
  scenarios: readonly Scenario[];
  /** Every tool the mock knows, by name; an agent gets the ones it lists. */
  tools: Record<string, ToolDefinition<any>>;
  newUuid: () => string;
}

/**
 * One hop of a scripted turn, with the real semantics (§2): execute the calls parked in the previous hop against
 * the layout this request carries (the shared `executeToolCalls`), then one model decision (the scenario's next
 * reply), or none when the agent's max_hops is used up. Mutates `turn`; the caller stores it.
 */
export async function runScriptedHop(
  turn: ScriptedTurn,
  request: HopRequest,
  setup: ScriptedHopSetup,
): Promise<HopResponse> {
  const agent = setup.agents.agents[turn.agentId]!;
  let outputs: ToolOutput[] = [];
  if (turn.parked.length > 0) {
    const executed = await executeToolCalls(turn.parked, {
      tools: toolsOf(agent, setup.tools),
      toolSettings: agent.tool_settings,
      catalog: setup.catalog,
      document: { layout: request.context.current_layout, page: request.context.page },
      pageFields: setup.agents.page_fields,
      newUuid: setup.newUuid,
    });
    outputs = executed.outputs;
    turn.outputs.push(...outputs);
    turn.parked = [];
  }

  const head: HopResponseHead = {
    requestId: turn.requestId,
    hop: request.hop,
    agent: { id: turn.agentId, label: agent.label },
    outputs,
  };
  if (turn.scenario === undefined) {
    return answerResponse(head, [
      noScenarioAnswer(scenarioMessagesFor(setup.scenarios, turn.agentId, setup.agents.main_agent)),
    ]);
  }
  // max_hops bounds model decisions: the hop after the last allowed one only executes what it parked.
  if (turn.decisions >= agent.max_hops) return maxHopsResponse(head, turn.texts, agent.max_hops);

  const decision = scriptedDecision(turn.scenario, turn.decisions, turn.outputs, request.context.selected_component);
  turn.decisions += 1;
  turn.texts.push(decision.text);
  if (decision.calls.length === 0) return answerResponse(head, turn.texts);
  turn.parked = decision.calls;
  return continuingResponse(head, turn.texts);
}

/** The tools an agent lists, among those the mock knows; a listed tool the mock lacks is an unknown tool at run time. */
function toolsOf(
  agent: AgentDefinition,
  tools: Record<string, ToolDefinition<any>>,
): Record<string, ToolDefinition<any>> {
  return Object.fromEntries(
    agent.tools.filter((name) => Object.hasOwn(tools, name)).map((name) => [name, tools[name]!]),
  );
}
