// ComponentNode is recursive through a getter whose return type is written out (src/wire/layout.ts), so that the
// emitted declarations keep the recursion. These checks hold that annotation to the schema: the type is still
// `z.infer` of the schema, a slot child is a ComponentNode, and a parsed tree's children read with no cast. The
// type-level ones are checked by the package's `tsc --noEmit` (part of `pnpm test`); the published declarations
// themselves are compiled by a strict host in packages/widget/test/host-types.test.mjs.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type * as z from 'zod';
import { ComponentNode, type Props } from '../src/index.js';

/** True when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The node as spec §10 describes it, written by hand. */
interface ExpectedNode {
  uuid: string;
  component: string;
  props: Props;
  slots?: Record<string, ExpectedNode[]> | undefined;
}

type SlotChild = NonNullable<ComponentNode['slots']>[string][number];

/** Compiles only when every check is `true`: how a type-level check fails `tsc --noEmit`. */
function typeChecks<T extends true[]>(...checks: T): T {
  return checks;
}

describe('ComponentNode', () => {
  it('types a slot child as a ComponentNode, to any depth, and parses a tree whose grandchildren read typed', () => {
    typeChecks<
      [
        Equal<ComponentNode, z.infer<typeof ComponentNode>>,
        Equal<SlotChild, ComponentNode>,
        Equal<SlotChild['props'], Props>,
        ComponentNode extends ExpectedNode ? true : false,
        ExpectedNode extends ComponentNode ? true : false,
      ]
    >(true, true, true, true, true);
    const node = ComponentNode.parse({
      uuid: 'a',
      component: 'section',
      props: {},
      slots: {
        body: [
          {
            uuid: 'b',
            component: 'columns',
            props: {},
            slots: { left: [{ uuid: 'c', component: 'text', props: { text: 'Hi' } }] },
          },
        ],
      },
    });
    const grandchild: ComponentNode | undefined = node.slots?.body?.[0]?.slots?.left?.[0];
    const props: Props | undefined = grandchild?.props;
    assert.deepEqual(props, { text: 'Hi' });
  });
});
