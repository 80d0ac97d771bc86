#!/usr/bin/env -S node --import tsx
// canvas-ai-turn: one turn against an agent server with no browser, on a JSON document (runHeadlessTurn). The only
// module of the package that touches the process and the file system. Exit codes: 0 done, 1 failed, 2 usage.
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type CanvasDocument, errorMessage, Layout, PageValues } from '@canvas-ai/protocol';
import { z } from 'zod';
import { runHeadlessTurn } from '../headless-turn.js';
import { ScriptedAnswers, scriptedWaits } from './scripted-answers.js';

const HELP = `canvas-ai-turn: runs one Canvas AI turn against an agent server, with no browser, on a JSON document.

Usage: canvas-ai-turn --server URL --message TEXT [--document FILE] [--out FILE] [--agent ID] [--attach FILE]…
                      [--answers JSON|FILE] [--no-csrf]

  --server URL      the agent server, e.g. http://127.0.0.1:8787 (hops to /api/hop, the CSRF token from /api/token)
  --message TEXT    what the person asks
  --document FILE   the page to start from, {"layout": {"regions": …}, "page": {…}}
                    (default: an empty page with one "content" region)
  --out FILE        where to write the page the turn made (default: standard output)
  --agent ID        the agent to ask (default: the server's main agent)
  --attach FILE     a file the person attaches to the message, sent with hop 1 (repeatable; an empty FILE attaches
                    nothing, for a script that has none to give)
  --answers JSON|FILE  how the person answers the turn's waits, in the order they come (a JSON array, or a file
                    holding one): {"kind":"question","choices":[0],"text":"…"} or {"kind":"question","dismissed":true},
                    {"kind":"plan","decision":"approve"} or {"kind":"plan","decision":"revise","feedback":"…"},
                    {"kind":"screenshot","image":"shot.png"} or {"kind":"screenshot","image":null} (none this time),
                    {"kind":"approval","approved":[0]} (the proposed changes left ticked; [] rejects them all).
                    Given, the turn declares every kind of wait; a wait past the list waits until Ctrl-C
  --no-csrf         ask for no session and CSRF token first (a server that checks none)
  --help            this text

The agent's narration goes to standard error as the turn runs. Ctrl-C (SIGINT) stops the turn: the hop in flight
is aborted and the server told. Exit codes: 0 the turn finished; 1 it failed or stopped (the page as far as it got
is still written); 2 a usage or input error.`;

/** The document a host's store holds; the page values may be left out. */
const DocumentFile = z.object({ layout: Layout, page: z._default(PageValues, {}) });

const EMPTY_PAGE: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };

/** Runs the command; answers its exit code. Output goes through `io` (a test hands in its own). */
export async function main(
  argv: readonly string[],
  io: { out: (text: string) => void; err: (text: string) => void } = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  },
  stop?: AbortSignal,
): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (error) {
    io.err(`${errorMessage(error)}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${HELP}\n`);
    return 0;
  }
  if (!values.server || !values.message) {
    io.err(`Give --server and --message.\n\n${HELP}\n`);
    return 2;
  }
  if (!isHttpUrl(values.server)) {
    io.err(`--server must be an http:// or https:// URL, such as http://127.0.0.1:8787, not "${values.server}".\n`);
    return 2;
  }
  let document: CanvasDocument;
  try {
    document = values.document ? await readDocument(values.document) : EMPTY_PAGE;
  } catch (error) {
    io.err(`${errorMessage(error)}\n`);
    return 2;
  }
  let attachments: Blob[];
  try {
    attachments = await readAttachments((values.attach ?? []).filter((path) => path !== ''));
  } catch (error) {
    io.err(`${errorMessage(error)}\n`);
    return 2;
  }
  let answers: ScriptedAnswers | undefined;
  try {
    answers = values.answers === undefined ? undefined : await readAnswers(values.answers);
  } catch (error) {
    io.err(`${errorMessage(error)}\n`);
    return 2;
  }
  const waits = answers
    ? scriptedWaits(answers, {
        readImage: async (path) => new File([await readFile(path)], basename(path)),
        unanswered: (kind) => io.err(`The turn waits for a ${kind}, and --answers has none left: Ctrl-C stops it.\n`),
      })
    : {};
  let told = '';
  const {
    document: made,
    result,
    answer,
  } = await runHeadlessTurn({
    server: values.server,
    document,
    message: values.message,
    agent: values.agent,
    attachments,
    csrf: !values['no-csrf'],
    signal: stop,
    ...waits,
    onHop: (report) => {
      // The narration grows hop by hop: show what is new.
      const progress = report.response.progress;
      if (progress.startsWith(told) && progress.length > told.length) io.err(`${progress.slice(told.length).trim()}\n`);
      told = progress;
    },
  });
  const json = `${JSON.stringify(made, null, 2)}\n`;
  if (values.out) {
    try {
      await writeFile(values.out, json);
    } catch (error) {
      // The turn's page is not lost: it goes to standard output instead.
      io.err(`Could not write ${values.out} (${errorMessage(error)}); the page follows on standard output.\n`);
      io.out(json);
      return 1;
    }
  } else io.out(json);
  if (result.status === 'done') {
    if (answer) io.err(`${answer}\n`);
    return 0;
  }
  io.err(
    result.status === 'error'
      ? `The turn failed at hop ${result.hops}: ${result.error.message}\n`
      : `The turn stopped at hop ${result.hops}.\n`,
  );
  return 1;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    options: {
      server: { type: 'string' },
      message: { type: 'string' },
      document: { type: 'string' },
      out: { type: 'string' },
      agent: { type: 'string' },
      attach: { type: 'string', multiple: true },
      answers: { type: 'string' },
      'no-csrf': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  }).values;
}

/** The files to attach, each with its file name (the server judges them by their bytes, spec §4.3). */
async function readAttachments(paths: readonly string[]): Promise<Blob[]> {
  return Promise.all(
    paths.map(async (path) => {
      try {
        return new File([await readFile(path)], basename(path));
      } catch (error) {
        throw new Error(`Could not read the attachment ${path}: ${errorMessage(error)}`);
      }
    }),
  );
}

/** The scripted answers: JSON given inline (it starts with `[`), or the path of a file holding it. */
async function readAnswers(given: string): Promise<ScriptedAnswers> {
  let text = given;
  if (!given.trimStart().startsWith('[')) {
    try {
      text = await readFile(given, 'utf8');
    } catch (error) {
      throw new Error(`Could not read the answers ${given}: ${errorMessage(error)}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`--answers is not JSON: ${errorMessage(error)}`);
  }
  const parsed = ScriptedAnswers.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--answers is not a list of answers: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}

async function readDocument(path: string): Promise<CanvasDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`Could not read the document ${path}: ${errorMessage(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The document ${path} is not JSON: ${errorMessage(error)}`);
  }
  const parsed = DocumentFile.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `The document ${path} is not a page ({"layout": {"regions": …}, "page": {…}}): ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return parsed.data as CanvasDocument;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Whether this module is the command being run (`import.meta.main` is Node 22.18+ and 24.2+ only). */
function isTheCommand(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isTheCommand()) {
  // Ctrl-C is the person's stop: the hop in flight is aborted and the server told (DELETE), then the command ends
  // with the page as far as it got.
  const stop = new AbortController();
  process.on('SIGINT', () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), undefined, stop.signal);
}
