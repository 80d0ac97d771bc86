// @canvas-ai/reference-server: mount the hop handler in any runtime, or run it on Node. Re-exports only.
export { createApp, type AppOptions, type CanvasAiApp, type ConnectionInfo, type StaticFiles } from './app.js';
export type { TurnTtls } from './server-deps.js';
export type { TurnStore, TurnLock } from './store/turn-store.js';
export { MemoryTurnStore, type MemoryTurnStoreOptions } from './store/memory.js';
export { RedisTurnStore, type RedisTurnStoreOptions } from './store/redis.js';
export type {
  ModelMessage,
  ModelProvider,
  ModelReply,
  ModelRequest,
  ModelUsage,
  StoredAttachment,
  StoredToolCall,
} from './providers/model-provider.js';
export { ScriptedProvider, type ScriptedProviderOptions } from './providers/scripted.js';
export { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from './providers/openai-compatible.js';
export { openAiProviderFromEnv, type ProviderEnv } from './providers/from-env.js';
export {
  createToolRegistry,
  ToolInputError,
  type ToolContext,
  type ToolDefinition,
  type ToolExecution,
} from './tools/index.js';
export { ConfigError } from './config-error.js';
export { loadConfig, type ConfigFiles, type LoadedConfig } from './config.js';
export { type ConnectionLimits, startServer, staticDirectory, type RunningServer } from './node.js';
export { jsonLineLogger, silentLogger, type Logger, type LogEntry } from './log.js';
export type { AdminOptions } from './admin.js';
export { LiveAgents, type LiveAgentsOptions } from './live-agents.js';
export { watchAgentsFile, type AgentsWatchOptions } from './agents-watch.js';
