import { builtinTools } from '@canvas-ai/protocol/server';
import type { ModelRequest } from '../../src/providers/model-provider.js';
import { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from '../../src/providers/openai-compatible.js';

/** A model request as the hop makes one, for calling a provider directly: a user message, the placing tools. */
export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    agentId: 'page_builder',
    mainAgent: 'guide',
    system: 'You build pages.',
    messages: [{ role: 'user', text: 'Add a hero', attachments: [] }],
    tools: [builtinTools.get_component_details, builtinTools.place_components],
    turn: { userMessage: 'Add a hero', decision: 1, placedUuids: [], selectedComponent: null },
    ...overrides,
  };
}

/** The OpenAI-compatible provider pointed at a fake endpoint: no retries unless asked, a 10 s timeout. */
export function providerAt(baseURL: string, options: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    model: 'fake-model',
    apiKey: 'sk-test',
    baseURL,
    timeoutMs: 10_000,
    maxRetries: 0,
    ...options,
  });
}

/** What a provider failure tells the log (its `detail`), or what it threw when it is not a HopError. */
export async function failureOf(decision: Promise<unknown>): Promise<{ code: string; detail: string }> {
  try {
    await decision;
  } catch (error) {
    const { code, detail, message } = error as { code?: string; detail?: string; message?: string };
    return { code: code ?? 'not a HopError', detail: detail ?? message ?? '' };
  }
  throw new Error('the decision succeeded; a failure was expected');
}
