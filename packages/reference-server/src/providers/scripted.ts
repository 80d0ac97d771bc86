import {
  APPROVAL_UNAVAILABLE_RESULT,
  APPROVED_RESULT,
  builtinTools,
  HopError,
  REJECTED_RESULT,
} from '@canvas-ai/protocol/server';
import { errorMessage } from '@canvas-ai/protocol';
import {
  matchScenario,
  noScenarioAnswer,
  resolvePlacedRefs,
  scenarioMessagesFor,
  type Scenario,
} from '@canvas-ai/protocol/scenario';
import type { ModelProvider, ModelReply, ModelRequest } from './model-provider.js';

/** How to switch from the scripted provider to a real model; told to anyone whose message matches no scenario. */
const REAL_MODEL_HELP =
  'To talk to a real model, start the server with `--provider openai` and set CANVAS_AI_OPENAI_MODEL, ' +
  'CANVAS_AI_OPENAI_API_KEY and, for an endpoint other than OpenAI (Gemini, Mistral, Ollama, vLLM, LM Studio …), ' +
  'CANVAS_AI_OPENAI_BASE_URL; or with `--provider anthropic` and set CANVAS_AI_ANTHROPIC_MODEL and ' +
  'CANVAS_AI_ANTHROPIC_API_KEY.';

/** The built-in tools that make a turn wait, whether or not this turn was offered them. */
const WAITING_TOOLS = new Set(
  Object.values(builtinTools)
    .filter((tool) => tool.waitKind !== undefined)
    .map((tool) => tool.name),
);

/** Whether a tool result is a change's that needed approval, once decided or refused (spec §20.5). */
function decided(content: string): boolean {
  return [APPROVED_RESULT, REJECTED_RESULT, APPROVAL_UNAVAILABLE_RESULT].some((words) => content.startsWith(words));
}

/** In a reply's text: the result the model was told for the turn's latest wait (spec §15, spec §20.2 to spec §20.5). */
const ANSWER_REF = '{{answer}}';

/**
 * `text` with {@link ANSWER_REF} replaced by the latest result of a call that made the turn wait (`ask_question`,
 * `request_screenshot`, `propose_plan`) in the conversation the model is handed, so a scenario's expected narration
 * proves that the answer reached the model. The scripted model reads no image: the result's fixed words stand for it
 * (spec §20.3).
 */
function resolveAnswerRef(text: string, messages: ModelRequest['messages']): string {
  if (!text.includes(ANSWER_REF)) return text;
  const result = messages.findLast(
    (message) => message.role === 'tool' && (WAITING_TOOLS.has(message.name) || decided(message.content)),
  );
  if (result?.role !== 'tool') throw new Error(`${ANSWER_REF} is used before anything was asked in this turn`);
  // A decided change's result is the decision's line, then the call's own result: the line alone stands for it.
  return text.replaceAll(ANSWER_REF, decided(result.content) ? result.content.split('\n')[0]! : result.content);
}

/** Options of {@link ScriptedProvider}. */
export interface ScriptedProviderOptions {
  /**
   * Milliseconds before each word of a reply's text reaches `onText`, so a streamed hop shows the words arriving as a
   * model's would (the demo's `npm start` uses 30). Default 0: every word at once, as tests and the conformance kit want.
   */
  wordDelayMs?: number;
}

/**
 * The default provider: replays scenario fixtures deterministically, no key, no network. The turn's scenario is
 * chosen by agent and normalized user message; decision N returns reply N, with `{{placed.N}}` resolved against
 * the uuids this server assigned earlier in the turn and `{{selected}}` against the request's selected component.
 * A reply's text goes to `onText` word by word, as a streaming model's would.
 */
export class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';
  readonly #scenarios: readonly Scenario[];
  readonly #wordDelayMs: number;

  constructor(scenarios: readonly Scenario[], options: ScriptedProviderOptions = {}) {
    this.#scenarios = scenarios;
    this.#wordDelayMs = options.wordDelayMs ?? 0;
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    const { reply, delayMs } = this.#reply(request);
    // A decision that takes a while, as a real model's does (the reply's delay_ms, spec/conformance.md §3).
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await this.#speak(reply.text, request.onText);
    return reply;
  }

  /** Hands `text` to `onText` one word at a time (each with the whitespace after it): the pieces joined are `text`. */
  async #speak(text: string, onText: ModelRequest['onText']): Promise<void> {
    if (!onText || text === '') return;
    for (const word of text.split(/(?<=\s)(?=\S)/)) {
      if (this.#wordDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#wordDelayMs));
      onText(word);
    }
  }

  #reply(request: ModelRequest): { reply: ModelReply; delayMs: number } {
    const scenario = matchScenario(this.#scenarios, {
      agent: request.agentId,
      userMessage: request.turn.userMessage,
      mainAgent: request.mainAgent,
    });
    if (!scenario) return { reply: { text: this.#noScenarioAnswer(request), toolCalls: [] }, delayMs: 0 };

    const reply = scenario.replies[request.turn.decision - 1];
    if (!reply) {
      throw new HopError(
        'provider_error',
        `Scenario "${scenario.id}" has ${scenario.replies.length} replies; decision ${request.turn.decision} has none to replay.`,
      );
    }
    try {
      return {
        reply: {
          text: resolveAnswerRef(reply.text, request.messages),
          toolCalls: reply.tool_calls.map((call) => ({
            id: call.id,
            name: call.name,
            arguments: resolvePlacedRefs(call.arguments, request.turn.placedUuids, request.turn.selectedComponent),
          })),
        },
        delayMs: reply.delay_ms ?? 0,
      };
    } catch (error) {
      throw new HopError(
        'provider_error',
        `Scenario "${scenario.id}" reply ${request.turn.decision}: ${errorMessage(error)}`,
      );
    }
  }

  /** The shared scripted-mode answer, with this server's own switch to a real model in place of the generic one. */
  #noScenarioAnswer(request: ModelRequest): string {
    const known = scenarioMessagesFor(this.#scenarios, request.agentId, request.mainAgent);
    return noScenarioAnswer(known, REAL_MODEL_HELP);
  }
}
