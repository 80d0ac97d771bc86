// The attack bench's /healthz prober, run as a child process so that the client sending the attack bodies (busy
// writing megabytes) does not delay its measurements. Reads lines on stdin: `start URL EVERY_MS` asks URL/healthz
// once uncounted (a process's first fetch sets up the HTTP client, which is the prober's cost, not the server's),
// writes `ready` on stdout, then asks again EVERY_MS after each answer; `stop` ends it and writes
// `{"max_ms":…,"probes":…}` on stdout.
import { createInterface } from 'node:readline';

let stopping: (() => Promise<{ max_ms: number; probes: number }>) | undefined;

async function start(url: string, everyMs: number) {
  await (await fetch(`${url}/healthz`)).arrayBuffer();
  process.stdout.write('ready\n');
  let stopped = false;
  let maxMs = 0;
  let probes = 0;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const response = await fetch(`${url}/healthz`);
      await response.arrayBuffer();
      maxMs = Math.max(maxMs, performance.now() - started);
      probes += 1;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { max_ms: maxMs, probes };
  };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, url, everyMs] = line.trim().split(' ');
  if (command === 'start' && url) stopping = await start(url, Number(everyMs ?? 5));
  else if (command === 'stop' && stopping) {
    process.stdout.write(`${JSON.stringify(await stopping())}\n`);
    stopping = undefined;
  }
}
