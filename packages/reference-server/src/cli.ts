#!/usr/bin/env -S node --import tsx
// canvas-ai-server: the only place (with node.ts) that touches the process. Exit codes: 0 ok, 1 failure, 2 usage.
import { errorMessage } from '@canvas-ai/protocol';
import { ConfigError } from './config-error.js';
import { type AppOptions, createApp } from './app.js';
import { checkModel } from './check-model.js';
import { UsageError } from '@canvas-ai/protocol/node';
import { type CliOptions, checkModelHelpText, helpText, parseCliOptions } from './cli-options.js';
import { loadConfig } from './config.js';
import { jsonLineLogger, type Logger } from './log.js';
import { allowedHostsFor, startServer, staticDirectory } from './node.js';
import { anthropicProviderFromEnv, openAiProviderFromEnv } from './providers/from-env.js';
import type { ModelProvider } from './providers/model-provider.js';
import { ScriptedProvider } from './providers/scripted.js';
import { redactUrl } from './redact.js';
import { RedisTurnStore } from './store/redis.js';
import { watchAgentsFile } from './agents-watch.js';
import { createToolRegistry } from './tools/registry.js';

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let options: ReturnType<typeof parseCliOptions>;
  try {
    options = parseCliOptions(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${helpText()}`);
    return 2;
  }
  if (options.help) {
    console.log(helpText());
    return 0;
  }
  let redis: RedisTurnStore | undefined;
  try {
    const log = jsonLineLogger();
    const config = await loadConfig({
      agentsFile: options.agents,
      catalogFile: options.catalog,
      scenariosDir: options.scenarios,
    });
    const provider =
      realProvider(options.provider, env) ??
      new ScriptedProvider(config.scenarios, { wordDelayMs: options.scriptedWordDelayMs });
    // Several instances share turns only through Redis (and only with one CANVAS_AI_SECRET, so tokens carry over).
    if (options.store !== 'memory') {
      redis = await RedisTurnStore.connect(options.store, { log, maxBytes: options.storeBytes });
      if (!env.CANVAS_AI_SECRET) {
        console.error(
          'warning: --store redis without CANVAS_AI_SECRET: each instance signs CSRF tokens with its own random secret, so a token only works on the instance that issued it. Set the same CANVAS_AI_SECRET on every instance.',
        );
      }
    }
    const app = createApp(appOptions(options, env, { config, provider, log, store: redis }));
    // The agents file is followed while the server runs: a valid change is taken, a broken one logged and ignored.
    const stopWatching = watchAgentsFile(config.agentsFile, app.agents!, {
      toolNames: Object.keys(createToolRegistry()),
      log,
    });
    const server = await startServer(app, {
      port: options.port,
      host: options.host,
      maxConnections: options.maxConnections,
      maxConnectionsPerIp: options.maxConnectionsPerIp,
      reservedConnections: options.reservedConnections,
      clientAddressHeader: options.clientAddressHeader,
      headersTimeoutMs: options.headersTimeoutMs,
      // Node's own limit on a whole request is a backstop: the app's body timeout answers first, with an error body.
      requestTimeoutMs: options.headersTimeoutMs + options.bodyTimeoutMs + 5_000,
    });
    const scripted =
      provider.name === 'scripted'
        ? ` (scripted: ${config.scenarios.length} scenarios; --provider openai or anthropic for a real model)`
        : '';
    const store = redis ? `; turns in ${redactUrl(options.store)}` : '';
    const admin = env.CANVAS_AI_ADMIN_TOKEN ? `; admin settings at ${server.url}/api/admin/settings` : '';
    console.error(`canvas-ai-server listening on ${server.url}${scripted}${store}${admin}`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    stopWatching();
    await server.close();
    return 0;
  } catch (error) {
    console.error(errorMessage(error));
    return 1;
  } finally {
    await redis?.close();
  }
}

/** `createApp`'s options from the command line and the environment, around the parts `main` made. */
function appOptions(
  options: CliOptions,
  env: NodeJS.ProcessEnv,
  parts: {
    config: Awaited<ReturnType<typeof loadConfig>>;
    provider: ModelProvider;
    log: Logger;
    store: RedisTurnStore | undefined;
  },
): AppOptions {
  return {
    agents: parts.config.agents,
    agentsSource: parts.config.agentsFile,
    catalog: parts.config.catalog,
    provider: parts.provider,
    docs: parts.config.docs,
    ...(parts.store ? { store: parts.store } : {}),
    logModelRequests: env.CANVAS_AI_LOG_MODEL_REQUESTS === '1',
    log: parts.log,
    staticFiles: options.static ? staticDirectory(options.static) : undefined,
    ttl: { waitMs: options.waitTtlMs },
    ...(env.CANVAS_AI_ADMIN_TOKEN ? { admin: { token: env.CANVAS_AI_ADMIN_TOKEN } } : {}),
    security: {
      secret: env.CANVAS_AI_SECRET || undefined,
      csrf: env.CANVAS_AI_CSRF !== 'off',
      tokenTtlMs: options.tokenTtlMs,
      secureCookies: env.CANVAS_AI_SECURE_COOKIES === '1',
      crossSiteCookies: env.CANVAS_AI_CROSS_SITE_COOKIES === '1',
      allowedHosts: options.allowedHosts ?? allowedHostsFor(options.host),
      allowedOrigins: options.allowedOrigins,
    },
    limits: { bodyTimeoutMs: options.bodyTimeoutMs, maxBufferedBodyBytes: options.maxBufferedBodyBytes },
    quotas: {
      session: {
        maxTurns: options.sessionTurns,
        maxBytes: options.sessionBytes,
        maxFinished: options.sessionAnswers,
      },
      address: { maxTurns: options.addressTurns, maxBytes: options.addressBytes },
      storeBytes: options.storeBytes,
      maxSessionsPerIp: options.ipSessions,
    },
  };
}

/** The real model `--provider` names, configured from the environment; undefined for the scripted one. */
function realProvider(name: CliOptions['provider'], env: NodeJS.ProcessEnv): ModelProvider | undefined {
  if (name === 'openai') return openAiProviderFromEnv(env);
  if (name === 'anthropic') return anthropicProviderFromEnv(env);
  return undefined;
}

/** `canvas-ai-server check-model`: the server's flags and variables, one verdict per line; exit 0 usable, 1 not. */
async function checkModelMain(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let provider: ModelProvider | undefined;
  try {
    const options = parseCliOptions(argv, env);
    if (options.help) {
      console.log(checkModelHelpText());
      return 0;
    }
    provider = realProvider(options.provider, env);
    if (!provider) {
      throw new UsageError(
        'check-model checks a real model: pass --provider openai or anthropic (or set CANVAS_AI_PROVIDER) and its variables.',
      );
    }
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error;
    console.error(`${error.message}\n\n${checkModelHelpText()}`);
    return 2;
  }
  console.log(`check-model: the ${provider.name} provider`);
  return (await checkModel(provider, { write: (line) => console.log(line) })) ? 0 : 1;
}

// `pnpm start -- --port 0` passes the `--` through; it separates nothing here.
const given = process.argv.slice(2);
const args = given[0] === '--' ? given.slice(1) : given;
process.exitCode =
  args[0] === 'check-model' ? await checkModelMain(args.slice(1), process.env) : await main(args, process.env);
