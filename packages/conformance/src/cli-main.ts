import { writeFile } from 'node:fs/promises';
import { FixtureError, UsageError } from '@canvas-ai/protocol/node';
import type { ConformanceReport } from './check.js';
import { conformanceHelp, parseConformanceArgs, type CliOptions } from './cli-args.js';
import { formatResultLine, formatSummary } from './reporter.js';
import { KIT_FIXTURES_DIR } from './load-inputs.js';
import { runConformance } from './run-conformance.js';
import { runClientConformance } from './client/run-client-conformance.js';
import { errorMessage } from '@canvas-ai/protocol';

/** Where the CLI writes: stdout and stderr, one line per call, and files (for `--json`). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  writeFile(path: string, text: string): Promise<void>;
}

/** The process's own streams and file system. */
const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  writeFile: (path, text) => writeFile(path, text, 'utf8'),
};

/**
 * The CLI without the process: parses the arguments, runs the checks printing one line each, then the summary.
 * Resolves the exit status: 0 every check passed, 1 a check failed, 2 a usage error (flags, fixtures, --json FILE).
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let options: CliOptions;
  try {
    options = parseConformanceArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${conformanceHelp()}`);
    return 2;
  }
  if (options.help) {
    io.out(conformanceHelp());
    return 0;
  }
  if (options.printFixtures) {
    io.out(KIT_FIXTURES_DIR);
    return 0;
  }
  let report: ConformanceReport;
  if (options.client !== undefined) {
    report = await runClientConformance({
      command: options.client,
      claim: options.claim,
      onResult: (result) => io.out(formatResultLine(result)),
      onScenario: (id, exitCode, stderr) => {
        if (exitCode !== 0)
          io.err(`scenario ${id}: the client exited ${exitCode ?? 'on a signal'}; its stderr ends:\n${stderr}`);
      },
    });
    return finish(report, options, io);
  }
  try {
    report = await runConformance({
      endpoint: options.endpoint,
      tokenEndpoint: options.tokenEndpoint,
      agentsEndpoint: options.agentsEndpoint,
      level: options.level,
      claim: options.claim,
      sessionTurns: options.sessionTurns,
      fixturesDir: options.fixturesDir,
      scenariosDir: options.scenariosDir,
      prompt: options.prompt,
      timeoutMs: options.timeoutMs,
      onResult: (result) => io.out(formatResultLine(result)),
    });
  } catch (error) {
    if (!(error instanceof FixtureError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    io.err(`Cannot read the fixtures: ${errorMessage(error)}`);
    return 2;
  }
  return finish(report, options, io);
}

/** Prints the summary, writes `--json`, and resolves the exit status. */
async function finish(report: ConformanceReport, options: CliOptions, io: CliIo): Promise<number> {
  io.out(formatSummary(report));
  if (options.json !== undefined) {
    try {
      await io.writeFile(options.json, `${JSON.stringify(report, null, 2)}\n`);
    } catch (error) {
      io.err(`Cannot write --json ${options.json}: ${errorMessage(error)}`);
      return 2;
    }
  }
  return report.failed > 0 ? 1 : 0;
}
