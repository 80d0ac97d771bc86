import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KIT_FIXTURES_DIR } from '../load-inputs.js';
import type { CheckResult, ConformanceReport } from '../check.js';
import { type CheckNeeds, type Claim, FULL_CLAIM, skippedByClaim, unclaimed } from '../claims.js';
import { describeSpecRef } from '../spec-refs.js';
import { CLIENT_CHECKS, type Recordings } from './client-checks.js';
import { CLIENT_SCENARIOS, type ClientScenario, type ScriptedAnswer } from './client-scenarios.js';
import { KIT_AGENTS, KitServer, type ScenarioRecording } from './kit-server.js';

/** How the kit runs the client under test, and what it reports as it goes. */
export interface ClientConformanceOptions {
  /**
   * The adapter: a shell command that runs one turn of the client under test and exits (0 when the turn ended with
   * its answer). `{server}`, `{message}`, `{agent}`, `{attachment}`, `{answers}`, `{out}` and `{shown}` are
   * replaced, shell-quoted, by the kit's base URL, the person's message, the agent to pick, the path of a file the
   * person attaches (empty when none), how the person answers the turn's waits (a JSON array of
   * {@link ScriptedAnswer}, `[]` when none), the path where the adapter writes the page its client holds once the
   * turn has ended (JSON, `{"layout": …, "page": …}`) and the path where it writes the text its client showed the
   * person (narration, answer, errors, as the person reads them); an adapter that writes neither skips the checks
   * that read them. The same values are in `CANVAS_AI_SERVER`, `CANVAS_AI_MESSAGE`, `CANVAS_AI_AGENT`,
   * `CANVAS_AI_ATTACHMENT`, `CANVAS_AI_ANSWERS`, `CANVAS_AI_OUT` and `CANVAS_AI_SHOWN`. SIGINT to its process group
   * means the person pressed stop.
   */
  command: string;
  /** The longest one scenario may run (default 30 s); past it the command is killed and the checks judge what came. */
  timeoutMs?: number;
  /** Only these scenarios (ids of {@link CLIENT_SCENARIOS}); default all the claim covers. */
  scenarios?: readonly string[];
  /**
   * The revision and optional parts the client claims (default: the newest revision with every part). Scenarios and
   * checks of the rest are skipped, one line per group.
   */
  claim?: Claim;
  onResult?: (result: CheckResult) => void;
  /** Each scenario as it ends: its id, the command's exit code (null when killed) and the end of its stderr. */
  onScenario?: (id: string, exitCode: number | null, stderr: string) => void;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The client kit (spec/conformance.md §7): serves each scripted turn of {@link CLIENT_SCENARIOS} from its own server
 * on 127.0.0.1, runs the client under test once per scenario through its adapter command, records every request it
 * makes, then judges the recordings with {@link CLIENT_CHECKS}.
 */
export async function runClientConformance(options: ClientConformanceOptions): Promise<ConformanceReport> {
  const claim = options.claim ?? FULL_CLAIM;
  const claimed = (needs: CheckNeeds | undefined) => needs === undefined || !unclaimed(needs, claim, 'client');
  const kit = new KitServer();
  const url = await kit.start();
  const recordings = new Map<string, ScenarioRecording>();
  const pages = await mkdtemp(join(tmpdir(), 'canvas-ai-client-kit-'));
  try {
    for (const scenario of CLIENT_SCENARIOS.filter((each) => claimed(each.needs))) {
      if (options.scenarios && !options.scenarios.includes(scenario.id)) continue;
      const recording = kit.begin(scenario);
      const files = { out: join(pages, `${scenario.id}.json`), shown: join(pages, `${scenario.id}.txt`) };
      const { exitCode, stderr } = await runAdapter(kit, url, scenario, files, options);
      kit.end();
      const written = await readWritten(files.out);
      if (written) recording.written = 'text' in written ? parsedPage(written.text) : written;
      const shown = await readWritten(files.shown);
      if (shown) recording.shown = shown;
      recordings.set(scenario.id, recording);
      options.onScenario?.(scenario.id, exitCode, stderr);
    }
  } finally {
    await kit.close();
    await rm(pages, { recursive: true, force: true });
  }
  return judge(recordings, url, claim, options);
}

/** What the claim leaves out: the checks and scenarios not run, grouped by what they need. */
function notClaimedBy(claim: Claim): NonNullable<ConformanceReport['notClaimed']> {
  const needsOf = (item: { needs?: CheckNeeds }): CheckNeeds => item.needs ?? { since: '1.0', what: 'revision 1.0' };
  const checks = skippedByClaim(CLIENT_CHECKS, claim, needsOf, 'client');
  const scenarios = skippedByClaim(CLIENT_SCENARIOS, claim, needsOf, 'client');
  const groups = new Map(checks.map((group) => [group.what, { ...group, scenarios: [] as string[] }]));
  for (const group of scenarios) {
    const known = groups.get(group.what) ?? { what: group.what, why: group.why, checks: [], scenarios: [] };
    known.scenarios.push(...group.checks);
    groups.set(group.what, known);
  }
  return [...groups.values()];
}

function judge(
  recordings: Recordings,
  url: string,
  claim: Claim,
  options: ClientConformanceOptions,
): ConformanceReport {
  const results: CheckResult[] = [];
  for (const check of CLIENT_CHECKS) {
    if (check.needs && unclaimed(check.needs, claim, 'client')) continue;
    const started = performance.now();
    const verdict = check.judge(recordings);
    const result: CheckResult = {
      id: check.id,
      group: 'client',
      level: 1,
      title: check.title,
      spec: describeSpecRef(check.spec),
      durationMs: performance.now() - started,
      ...verdict,
    };
    results.push(result);
    options.onResult?.(result);
  }
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  return {
    subject: 'client',
    endpoint: `${options.command} (the kit served it at ${url})`,
    level: 1,
    claim,
    notClaimed: notClaimedBy(claim),
    results,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
  };
}

/** The largest file the kit reads back from `{out}` or `{shown}`: far above any scenario's, so a runaway one is not read whole. */
const WRITTEN_MAX_BYTES = 1024 * 1024;

/** The text an adapter wrote to `path`; undefined when it wrote none. */
async function readWritten(path: string): Promise<{ text: string } | { problem: string } | undefined> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return undefined;
  }
  if (size > WRITTEN_MAX_BYTES) return { problem: `${size} bytes, more than the kit reads (${WRITTEN_MAX_BYTES})` };
  return { text: await readFile(path, 'utf8') };
}

/** The page an adapter wrote to `{out}`, as JSON. */
function parsedPage(text: string): NonNullable<ScenarioRecording['written']> {
  try {
    return { document: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The most of an adapter's stderr kept for the report: its end. */
const STDERR_KEPT = 4096;

/** Runs the adapter for one scenario; resolves its exit code (null when the kit had to kill it) and stderr's end. */
function runAdapter(
  kit: KitServer,
  url: string,
  scenario: ClientScenario,
  files: { out: string; shown: string },
  options: ClientConformanceOptions,
): Promise<{ exitCode: number | null; stderr: string }> {
  const agent = KIT_AGENTS.tools[0]!.id;
  const attachment = scenario.attachment ? join(KIT_FIXTURES_DIR, scenario.attachment) : '';
  const answers = JSON.stringify((scenario.answers ?? []).map(withImagePath));
  const command = options.command
    .replaceAll('{server}', shellQuote(url))
    .replaceAll('{message}', shellQuote(scenario.message))
    .replaceAll('{agent}', shellQuote(agent))
    .replaceAll('{attachment}', shellQuote(attachment))
    .replaceAll('{answers}', shellQuote(answers))
    .replaceAll('{out}', shellQuote(files.out))
    .replaceAll('{shown}', shellQuote(files.shown));
  const child = spawn(command, {
    shell: true,
    // Its own process group: the stop and the timeout reach the client, not only the shell that started it.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      CANVAS_AI_SERVER: url,
      CANVAS_AI_MESSAGE: scenario.message,
      CANVAS_AI_AGENT: agent,
      CANVAS_AI_ATTACHMENT: attachment,
      CANVAS_AI_ANSWERS: answers,
      CANVAS_AI_OUT: files.out,
      CANVAS_AI_SHOWN: files.shown,
    },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  kit.onStopWanted = () => {
    kit.stopAsked();
    signalGroup('SIGINT');
  };
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalGroup('SIGKILL'), deadline - performance.now());
    child.on('exit', async (code) => {
      // A shell that SIGINT ended may leave the client running its stop: the scenario lasts until every process of
      // the group has ended.
      while (child.pid && groupAlive(child.pid) && performance.now() < deadline)
        await new Promise((wait) => setTimeout(wait, GROUP_POLL_MS));
      if (child.pid && groupAlive(child.pid)) signalGroup('SIGKILL');
      clearTimeout(timer);
      kit.onStopWanted = undefined;
      resolve({ exitCode: code, stderr });
    });
  });
}

/** A scripted answer as the adapter gets it: a screenshot's image as a path it can open. */
function withImagePath(answer: ScriptedAnswer): ScriptedAnswer {
  return answer.kind === 'screenshot' && answer.image !== null
    ? { ...answer, image: join(KIT_FIXTURES_DIR, answer.image) }
    : answer;
}

/** How often the kit looks whether an adapter's processes have all ended. */
const GROUP_POLL_MS = 50;

/** Whether any process of the group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `text` as one word of a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
