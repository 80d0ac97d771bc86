import { ConfigError } from '../config-error.js';
import { AnthropicProvider } from './anthropic.js';
import { OpenAiCompatibleProvider } from './openai-compatible.js';

/** The environment of the real provider (names as in the README). */
export type ProviderEnv = Partial<
  Record<
    'CANVAS_AI_OPENAI_BASE_URL' | 'CANVAS_AI_OPENAI_API_KEY' | 'CANVAS_AI_OPENAI_MODEL' | 'CANVAS_AI_OPENAI_TIMEOUT_MS',
    string
  >
>;

/** The OpenAI-compatible provider configured from environment variables; a missing setting names the variable. */
export function openAiProviderFromEnv(env: ProviderEnv): OpenAiCompatibleProvider {
  const problems: string[] = [];
  const model = env.CANVAS_AI_OPENAI_MODEL?.trim();
  const baseURL = env.CANVAS_AI_OPENAI_BASE_URL?.trim() || undefined;
  let apiKey = env.CANVAS_AI_OPENAI_API_KEY?.trim();
  if (!model)
    problems.push(
      'CANVAS_AI_OPENAI_MODEL: not set. Set it to the model name, e.g. gpt-4o-mini (OpenAI) or llama3.1 (Ollama).',
    );
  if (!apiKey) {
    // Local servers (Ollama, vLLM, LM Studio) ignore the key, but the client library wants one.
    if (baseURL) apiKey = 'not-needed';
    else
      problems.push(
        'CANVAS_AI_OPENAI_API_KEY: not set. Set your OpenAI key, or CANVAS_AI_OPENAI_BASE_URL for a local server.',
      );
  }
  const timeout = env.CANVAS_AI_OPENAI_TIMEOUT_MS ? Number(env.CANVAS_AI_OPENAI_TIMEOUT_MS) : undefined;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    problems.push(
      `CANVAS_AI_OPENAI_TIMEOUT_MS: "${env.CANVAS_AI_OPENAI_TIMEOUT_MS}" is not a positive number of milliseconds.`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems.map((problem) => `environment: ${problem}`));
  return new OpenAiCompatibleProvider({ model: model!, apiKey: apiKey!, baseURL, timeoutMs: timeout });
}

/** The environment of the Anthropic provider (names as in the README). */
export type AnthropicEnv = Partial<
  Record<
    | 'CANVAS_AI_ANTHROPIC_BASE_URL'
    | 'CANVAS_AI_ANTHROPIC_API_KEY'
    | 'CANVAS_AI_ANTHROPIC_MODEL'
    | 'CANVAS_AI_ANTHROPIC_TIMEOUT_MS'
    | 'CANVAS_AI_ANTHROPIC_MAX_TOKENS',
    string
  >
>;

/** The Anthropic provider configured from environment variables; a missing or bad setting names the variable. */
export function anthropicProviderFromEnv(env: AnthropicEnv): AnthropicProvider {
  const problems: string[] = [];
  const model = env.CANVAS_AI_ANTHROPIC_MODEL?.trim();
  const apiKey = env.CANVAS_AI_ANTHROPIC_API_KEY?.trim();
  const baseURL = env.CANVAS_AI_ANTHROPIC_BASE_URL?.trim() || undefined;
  if (!model) problems.push('CANVAS_AI_ANTHROPIC_MODEL: not set. Set it to the model name, e.g. claude-sonnet-4-5.');
  if (!apiKey) problems.push('CANVAS_AI_ANTHROPIC_API_KEY: not set. Set your Anthropic API key.');
  const positive = (name: 'CANVAS_AI_ANTHROPIC_TIMEOUT_MS' | 'CANVAS_AI_ANTHROPIC_MAX_TOKENS', what: string) => {
    const text = env[name]?.trim();
    if (!text) return undefined;
    const value = Number(text);
    if (Number.isInteger(value) && value > 0) return value;
    problems.push(`${name}: "${env[name]}" is not a positive number of ${what}.`);
    return undefined;
  };
  const timeoutMs = positive('CANVAS_AI_ANTHROPIC_TIMEOUT_MS', 'milliseconds');
  const maxTokens = positive('CANVAS_AI_ANTHROPIC_MAX_TOKENS', 'tokens');
  if (problems.length > 0) throw new ConfigError(problems.map((problem) => `environment: ${problem}`));
  return new AnthropicProvider({ model: model!, apiKey: apiKey!, baseURL, timeoutMs, maxTokens });
}
