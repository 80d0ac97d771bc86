import { LIMITS } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer } from '../http-client.js';
import { doorProbe } from '../requests.js';
import { describeProbe, expected, isError, passedTheDoor } from './door-answers.js';
import { judgeLimit } from './door.js';

const must = (what: string) => ({
  section: 'limits' as const,
  must: `A server MUST enforce the limits before calling a model and MUST count as spec §13 says: ${what}.`,
});

/**
 * Level 1, the size limits of spec §13 and how they are counted, each probed at the limit and one over it. A server
 * MAY be stricter: a refusal at the limit then passes, but a server that accepts one over the limit fails.
 */
export const limitChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'limits.message-characters',
    level: 1,
    title: `A message of ${LIMITS.messageChars.toLocaleString('en-US')} characters passes, emoji included (code points, not UTF-16 units); one more is refused naming messages.0.text.`,
    spec: must('characters are Unicode code points'),
    run: messageCharacters,
  }),
  defineCheck({
    id: 'limits.messages',
    level: 1,
    title: `Hop 1 with ${LIMITS.maxMessages.toLocaleString('en-US')} messages passes; one more is refused naming messages.`,
    spec: must('messages are counted as given'),
    run: (context) =>
      judgeLimit(context, {
        atLimit: doorProbe('messages', { messages: userMessages(LIMITS.maxMessages) }),
        over: doorProbe('messages', { messages: userMessages(LIMITS.maxMessages + 1) }),
        field: 'messages',
        what: 'messages',
      }),
  }),
  defineCheck({
    id: 'limits.layout-components',
    level: 1,
    title: `A layout of ${LIMITS.maxLayoutComponents.toLocaleString('en-US')} components passes; one more is refused naming context.current_layout.`,
    spec: must('components are counted through every slot'),
    run: (context) =>
      judgeLimit(context, {
        atLimit: doorProbe('components', { context: { current_layout: layoutOf(LIMITS.maxLayoutComponents) } }),
        over: doorProbe('components', { context: { current_layout: layoutOf(LIMITS.maxLayoutComponents + 1) } }),
        field: 'context.current_layout',
        what: 'layout components',
      }),
  }),
  defineCheck({
    id: 'limits.json-depth',
    level: 1,
    title: `A request ${LIMITS.maxJsonDepth} levels deep passes (the top-level object is level 1); one level more is refused naming the first container too deep.`,
    spec: must('the top-level object is level 1, scalars add no level, `field` names the first container too deep'),
    run: (context) =>
      judgeLimit(context, {
        atLimit: deepProbe(LIMITS.maxJsonDepth),
        over: deepProbe(LIMITS.maxJsonDepth + 1),
        field: `context.extra${'.0'.repeat(LIMITS.maxJsonDepth + 1 - 3)}`,
        what: 'nesting levels',
      }),
  }),
  defineCheck({
    id: 'limits.json-values',
    level: 1,
    title: `${LIMITS.maxJsonValuesOutsideLayout.toLocaleString('en-US')} JSON values outside the layout and ${LIMITS.maxJsonValues.toLocaleString('en-US')} in all pass; one more is refused naming the first value over the count.`,
    spec: must('every value counts one, the top-level object included, keys not; the layout object counts as inside'),
    async run(context) {
      const outside = await judgeLimit(context, valuesOutsideLayout());
      if (outside.status !== 'pass') return outside;
      const total = await judgeLimit(context, valuesInAll());
      return total.status === 'pass' ? pass(`outside the layout: ${outside.why}; in all: ${total.why}`) : total;
    },
  }),
  defineCheck({
    id: 'limits.map-keys',
    level: 1,
    title: `Maps of ${LIMITS.maxMapKeys.toLocaleString('en-US')} keys in all pass (objects of more than ${LIMITS.mapThresholdKeys} keys); one key more is refused naming the map that key is in.`,
    spec: must(
      'an object of more keys than the threshold is a map whose keys all count, and `field` is the path of the map whose key puts the sum over the limit',
    ),
    run: (context) => {
      const over = mapsOfKeys(LIMITS.maxMapKeys + 1);
      return judgeLimit(context, {
        atLimit: mapsOfKeys(LIMITS.maxMapKeys).probe,
        over: over.probe,
        field: over.lastMap,
        what: 'map keys',
      });
    },
  }),
];

/**
 * A layout whose components' props are maps holding `keys` keys in all, 1,000 a map and the rest in the last one (so
 * every map is over the threshold), and the path of that last map: the key one over the limit is in it.
 */
function mapsOfKeys(keys: number): { probe: Record<string, unknown>; lastMap: string } {
  const perMap = 1_000;
  const maps = Math.floor(keys / perMap);
  const components = Array.from({ length: maps }, (_, index) => {
    const size = index === maps - 1 ? keys - perMap * (maps - 1) : perMap;
    const props = Object.fromEntries(Array.from({ length: size }, (_, key) => [`k${key}`, 0]));
    return { uuid: `conformance-map-${index}`, component: 'conformance.box', props };
  });
  return {
    probe: doorProbe('map-keys', { context: { current_layout: { regions: { content: { components } } } } }),
    lastMap: `context.current_layout.regions.content.components.${maps - 1}.props`,
  };
}

async function messageCharacters(context: CheckContext): Promise<CheckVerdict> {
  const probe = (text: string) => doorProbe('characters', { messages: [{ role: 'user', text }] });
  const ascii = await context.client.postHop(probe('x'.repeat(LIMITS.messageChars)));
  const emoji = await context.client.postHop(probe('😀'.repeat(LIMITS.messageChars)));
  const over = await context.client.postHop(probe('😀'.repeat(LIMITS.messageChars + 1)));
  const field = 'messages.0.text';
  if (!isError(over, 400, 'invalid_request'))
    return fail(
      `${LIMITS.messageChars + 1} emoji ${describeProbe(over)}, expected ${expected(400, 'invalid_request', field)}`,
    );
  if (!passedTheDoor(ascii)) {
    if (isError(ascii, 400, 'invalid_request'))
      return pass(
        `${LIMITS.messageChars} characters were refused: the server is stricter than spec §13, which it may be`,
      );
    return fail(`a message of ${LIMITS.messageChars} characters ${describeProbe(ascii)}; expected it to pass the door`);
  }
  if (!passedTheDoor(emoji)) {
    return fail(
      `${LIMITS.messageChars} "x" passed but ${LIMITS.messageChars} emoji ${describeAnswer(emoji)}: characters are code points, and an emoji is one (two UTF-16 code units)`,
    );
  }
  return isError(over, 400, 'invalid_request', field)
    ? pass(`${LIMITS.messageChars} emoji passed, ${LIMITS.messageChars + 1} got ${describeAnswer(over)}`)
    : fail(`${LIMITS.messageChars + 1} emoji answered ${describeAnswer(over)}, expected the field ${field}`);
}

function userMessages(count: number) {
  return Array.from({ length: count }, (_, index) => ({ role: 'user', text: `message ${index + 1}` }));
}

function layoutOf(components: number) {
  const nodes = Array.from({ length: components }, (_, index) => ({
    uuid: `conformance-${index}`,
    component: 'conformance.box',
    props: {},
  }));
  return { regions: { content: { components: nodes } } };
}

/** A request `levels` deep: the top-level object is level 1, `context` 2, the arrays in `extra` 3 and on. */
function deepProbe(levels: number) {
  let value: unknown = 0;
  for (let level = 0; level < levels - 2; level += 1) value = [value];
  return doorProbe('depth', { context: { current_layout: { regions: {} }, extra: value } });
}

/** Every JSON value in `value`, itself included (spec §13: objects, arrays and scalars; keys do not count). */
function countValues(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    count += 1;
    if (item !== null && typeof item === 'object') stack.push(...Object.values(item));
  }
  return count;
}

/**
 * Values outside the layout up to the limit, the last ones in `context.extra`, which is the last field of the
 * request in document order: one more makes that array's last item the first value over the count.
 */
function valuesOutsideLayout() {
  const layout = { regions: {} };
  const probe = (items: number) =>
    doorProbe('values-outside', { context: { current_layout: layout, extra: new Array(items).fill(0) } });
  const room = LIMITS.maxJsonValuesOutsideLayout - (countValues(probe(0)) - countValues(layout));
  return {
    atLimit: probe(room),
    over: probe(room + 1),
    field: `context.extra.${room}`,
    what: 'values outside the layout',
  };
}

/** Values in all up to the limit, the last ones in a prop of the layout's only component, the request's last value. */
function valuesInAll() {
  const probe = (items: number) =>
    doorProbe('values-all', {
      context: {
        current_layout: {
          regions: {
            content: {
              components: [
                { uuid: 'conformance-1', component: 'conformance.box', props: { data: new Array(items).fill(0) } },
              ],
            },
          },
        },
      },
    });
  const room = LIMITS.maxJsonValues - countValues(probe(0));
  return {
    atLimit: JSON.stringify(probe(room)),
    over: JSON.stringify(probe(room + 1)),
    field: `context.current_layout.regions.content.components.0.props.data.${room}`,
    what: 'values in all',
  };
}
