import * as z from 'zod/mini';
import * as protocol from '../src/index.js';
import * as C from '../src/check/wire-checkers.js';
import { checkersModule } from '../src/spec/checkers.js';
import { refineBy } from '../src/wire/refinements.js';
const { check } = protocol;
const P = protocol as any;
function cmp(label: string, schema: any, checker: any, value: unknown) {
  const zr: any = z.safeParse(schema, value); const cr: any = checker.safeParse(value);
  const show = (r: any) => r.success ? `ok ${JSON.stringify(r.data)?.slice(0, 100)}` : `fail ${JSON.stringify(r.error.issues[0].path)} ${r.error.issues[0].message}`;
  console.log(`${label}\n  zod:     ${show(zr)}\n  checker: ${show(cr)}`);
}
for (const t of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) cmp(`tag ${t}`, P.ToolOutput, C.ToolOutputChecker, { type: t });
cmp('should_continue "false" + bad status', P.HopResponse, C.HopResponseChecker, { status: 'x', should_continue: 'false' });
cmp('state 1', P.TurnStatusResponse, C.TurnStatusResponseChecker, { state: 1 });

const body = (s: any) => checkersModule({ X: s }).split('\n').filter((l) => l.startsWith('export const X')).join('');
console.log('\n-- generator --');
console.log('abort:', body(z.string().check(z.minLength(3, { abort: true }), z.regex(/a/))));
console.log('no abort:', body(z.string().check(z.minLength(3), z.regex(/a/))));
console.log('strict:', body(z.strictObject({ a: z.string() })));
console.log('loose:', body(z.looseObject({ a: z.string() })));
console.log('nullable(optional):', body(z.object({ a: z.nullable(z.optional(z.string())) })));
console.log('refine before max:', body(z.array(z.string()).check(refineBy('allDifferent', [], { message: 'dup' }), z.maxLength(2))));
console.log('enum-keyed record:', body(z.record(z.enum(['a', 'b']), z.string())));
try { console.log('xor:', body((z as any).xor([z.string(), z.number()]))); } catch (e) { console.log('xor threw', String(e)); }
console.log('default fn:', body(z.object({ a: z._default(z.number(), () => Math.random()) })));

// demonstrate the consequences with hand-built equivalents
const s1 = z.array(z.string()).check(refineBy('allDifferent', [], { message: 'dup' }), z.maxLength(2));
const c1 = check.array(check.string(), [check.refine(protocol.check ? (v: unknown[]) => new Set(v).size === v.length : null as any, 'dup'), check.maxLength(2)]);
cmp('refine-before-max list too long with bad item', s1, c1, [1, 'a', 'b']);
const s2 = z.strictObject({ a: z.string() });
const c2 = check.object({ a: check.string() });
cmp('strictObject extra key', s2, c2, { a: 'x', b: 1 });
const s3 = z.object({ a: z.nullable(z.optional(z.string())) });
const c3 = check.object({ a: check.nullable(check.optional(check.string())) });
cmp('nullable(optional) absent', s3, c3, {});
const s4 = z.record(z.enum(['a', 'b']), z.string());
const c4 = check.record(check.oneOf(['a', 'b']), check.string());
cmp('enum-keyed record missing key', s4, c4, { a: 'x' });
