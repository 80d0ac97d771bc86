import * as z from 'zod/mini';
import * as protocol from '../src/index.js';
import * as C from '../src/check/wire-checkers.js';
import { layoutProblem } from '../src/layout/layout-problem.js';

const P = protocol as any;
function cmp(label: string, schema: any, checker: any, value: unknown) {
  let zr: any, cr: any;
  try { zr = z.safeParse(schema, value); } catch (e) { zr = { threw: String(e).slice(0, 60) }; }
  try { cr = checker.safeParse(value); } catch (e) { cr = { threw: String(e).slice(0, 60) }; }
  const show = (r: any) => r.threw ? `THREW ${r.threw}` : r.success ? `ok ${JSON.stringify(r.data)?.slice(0, 120)}` : `fail ${JSON.stringify(r.error.issues[0].path)} ${r.error.issues[0].message}`;
  console.log(`${label}\n  zod:     ${show(zr)}\n  checker: ${show(cr)}`);
}
const node = (extra: any = {}) => ({ uuid: 'u1', component: 'c', props: {}, ...extra });
const layout = (props: any, extra: any = {}) => ({ regions: { content: { components: [node({ props, ...extra })] } } });

cmp('1 should_continue "true" (string)', P.HopResponse, C.HopResponseChecker, { should_continue: 'true' });
cmp('2 Date as props', P.Layout, C.LayoutChecker, layout(new Date()));
cmp('2b Date in prop value', P.Layout, C.LayoutChecker, layout({ when: new Date() }));
class Thing { a = 1 }
cmp('2c class instance prop value', P.Layout, C.LayoutChecker, layout({ t: new Thing() }));
cmp('2d Map as regions', P.Layout, C.LayoutChecker, { regions: new Map() });
console.log('   layoutProblem Date prop:', layoutProblem(layout({ when: new Date() })));
console.log('   layoutProblem Map regions:', layoutProblem({ regions: new Map() }));
const holes = { regions: { content: { components: new Array(2) } } };
cmp('3 array with holes', P.Layout, C.LayoutChecker, holes);
try { console.log('   layoutProblem holes:', layoutProblem(holes)); } catch (e) { console.log('   layoutProblem holes THREW', String(e)); }
cmp('3b hole in JsonValue array', P.Layout, C.LayoutChecker, layout({ list: [1, , 3] }));
cmp('4 symbol key in props', P.Layout, C.LayoutChecker, layout({ [Symbol('s')]: 1, a: 1 }));
const ne = { a: 1 }; Object.defineProperty(ne, 'hidden', { value: 2, enumerable: false });
cmp('4b non-enumerable prop', P.Layout, C.LayoutChecker, layout(ne));
cmp('5 optional key present as undefined', P.Layout, C.LayoutChecker, layout({}, { slots: undefined }));
cmp('6 -0 / 1e21 / NaN', P.Layout, C.LayoutChecker, layout({ a: -0, b: 1e21 }));
cmp('6b NaN', P.Layout, C.LayoutChecker, layout({ a: NaN }));
cmp('6c int 2**53', P.TokenResponse, C.TokenResponseChecker, { token: 'x', header: 'X-CSRF-Token' });
const tc = { status: true, protocol: 'canvas-ai/1', request_id: 'r', hop: 2 ** 53, agent: { id: 'a', label: 'l' }, outputs: [], progress: '', should_continue: false, message: '', finish_reason: 'answer' };
cmp('6d hop 2**53', P.HopResponse, C.HopResponseChecker, tc);
cmp('7 lone surrogate', P.Layout, C.LayoutChecker, layout({ ['\ud800']: '\udc00' }));
cmp('8 __proto__ own key in props (JSON)', P.Layout, C.LayoutChecker, JSON.parse('{"regions":{"content":{"components":[{"uuid":"u","component":"c","props":{"__proto__":{"x":1},"a":1}}]}}}'));
cmp('8b constructor key in props', P.Layout, C.LayoutChecker, JSON.parse('{"regions":{"content":{"components":[{"uuid":"u","component":"c","props":{"constructor":1}}]}}}'));
cmp('8c __proto__ region', P.Layout, C.LayoutChecker, JSON.parse('{"regions":{"__proto__":{"components":[]}}}'));
const proto = Object.create({ components: [] });
cmp('9 inherited field', P.Layout, C.LayoutChecker, { regions: { content: proto } });
cmp('10 Object.create(null) props', P.Layout, C.LayoutChecker, layout(Object.assign(Object.create(null), { a: 1 })));
