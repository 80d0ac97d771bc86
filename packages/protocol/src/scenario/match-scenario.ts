import type { Scenario } from './scenario.js';

/** What a scripted-mode server knows about a turn when it picks the scenario to replay. */
export interface ScenarioQuery {
  /** The agent picked for the message; absent → the main agent. */
  agent?: string | undefined;
  /** The user's message that starts the turn. */
  userMessage: string;
  /** The configured main agent, which a scenario without `agent` belongs to. */
  mainAgent: string;
}

/** A user message as scenarios are matched on it: trimmed, runs of whitespace collapsed to one space, lower case. */
export function normalizeUserMessage(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The scenario a scripted-mode server replays for a turn (spec/conformance.md): same agent (absent means the main
 * agent, on both sides) and the same user message after {@link normalizeUserMessage}. The first match wins.
 */
export function matchScenario(scenarios: readonly Scenario[], query: ScenarioQuery): Scenario | undefined {
  const agent = query.agent ?? query.mainAgent;
  const message = normalizeUserMessage(query.userMessage);
  return scenarios.find(
    (scenario) =>
      (scenario.agent ?? query.mainAgent) === agent && normalizeUserMessage(scenario.user_message) === message,
  );
}

/** The user messages a scripted-mode server understands for one agent, in fixture order. */
export function scenarioMessagesFor(scenarios: readonly Scenario[], agent: string, mainAgent: string): string[] {
  return scenarios
    .filter((scenario) => (scenario.agent ?? mainAgent) === agent)
    .map((scenario) => scenario.user_message);
}

/** The generic way to a real model, for a scripted server that has no more specific instructions of its own. */
export const REAL_MODEL_HINT =
  'To talk to a real model, point the chat at a Canvas AI server configured with a model provider (for the ' +
  'reference server: an OpenAI-compatible base URL, model name and API key).';

/**
 * The one-hop answer of a scripted-mode server to a message no scenario matches: says why, lists what it does
 * understand, and how to get a real model instead. A server that knows its own switch (flags, environment
 * variables) passes it as `realModelHelp`, which replaces {@link REAL_MODEL_HINT}: the answer gives one way.
 */
export function noScenarioAnswer(knownMessages: readonly string[], realModelHelp: string = REAL_MODEL_HINT): string {
  const known =
    knownMessages.length > 0
      ? ` For this agent it knows: ${knownMessages.map((message) => `"${message}"`).join(', ')}.`
      : ' It knows no message for this agent.';
  return (
    'This server runs in scripted mode: it replays the scenarios of fixtures/scenarios instead of calling a model, ' +
    `and none of them starts with your message.${known} ${realModelHelp}`
  );
}
