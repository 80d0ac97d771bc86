import { loadBenchScenario, turnBodies } from './src/shared/bench-turn.js';
import { inProcessServer } from './src/shared/in-process.js';
import { benchLayout } from './src/shared/layout.js';
const scenario = await loadBenchScenario();
const server = await inProcessServer();
const bodies = turnBodies(scenario, benchLayout(10000));
let total = 0,
  n = 0;
for (let turn = 0; turn < 12; turn++) {
  for (let hop = 1; hop <= bodies.hops; hop++) {
    const t = performance.now();
    const r = await server.app.fetch(server.hopRequest(bodies.body(hop, `p-${turn}`)));
    await r.text();
    if (turn >= 2) {
      total += performance.now() - t;
      n++;
    }
  }
}
console.log('ms/hop', (total / n).toFixed(2));
