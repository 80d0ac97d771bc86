import * as z from 'zod/mini';
import * as protocol from '../src/index.js';
import * as C from '../src/check/wire-checkers.js';
const P = protocol as any;
const layout = (props: any) => ({ regions: { content: { components: [{ uuid: 'u1', component: 'c', props }] } } });
function deepArr(d: number) { let v: any = 1; for (let i = 0; i < d; i++) v = [v]; return v; }
function deepObj(d: number) { let v: any = 1; for (let i = 0; i < d; i++) v = { k: v }; return v; }
function deepNode(d: number) { let v: any = { uuid: 'u', component: 'c', props: {} }; for (let i = 0; i < d; i++) v = { uuid: 'u' + i, component: 'c', props: {}, slots: { s: [v] } }; return { regions: { content: { components: [v] } } }; }
function run(label: string, f: () => any) {
  const t = performance.now();
  let r: any;
  try { r = f(); r = r.success ? 'ok' : 'fail ' + JSON.stringify(r.error.issues[0].path).slice(0, 40); } catch (e) { r = 'THREW ' + String(e).slice(0, 50); }
  console.log(label.padEnd(34), r.padEnd(50), (performance.now() - t).toFixed(1) + 'ms');
}
for (const d of [1000, 2000, 4000, 8000, 16000]) {
  const a = layout({ x: deepArr(d) });
  run(`deepArr ${d} zod`, () => z.safeParse(P.Layout, a));
  run(`deepArr ${d} checker`, () => C.LayoutChecker.safeParse(a));
  const o = layout({ x: deepObj(d) });
  run(`deepObj ${d} zod`, () => z.safeParse(P.Layout, o));
  run(`deepObj ${d} checker`, () => C.LayoutChecker.safeParse(o));
  const n = deepNode(d);
  run(`deepNode ${d} zod`, () => z.safeParse(P.Layout, n));
  run(`deepNode ${d} checker`, () => C.LayoutChecker.safeParse(n));
}
// wide
for (const n of [1e4, 1e5, 1e6]) {
  const w = layout({ x: Array.from({ length: n }, (_, i) => ({ ['k' + i]: 'v' })) });
  run(`wide ${n} zod`, () => z.safeParse(P.Layout, w));
  run(`wide ${n} checker`, () => C.LayoutChecker.safeParse(w));
  const bad = { regions: { content: { components: Array.from({ length: n }, (_, i) => ({ uuid: 'bad uuid', component: 'c', props: {} })) } } };
  run(`many issues ${n} zod`, () => z.safeParse(P.Layout, bad));
  run(`many issues ${n} checker`, () => C.LayoutChecker.safeParse(bad));
}
