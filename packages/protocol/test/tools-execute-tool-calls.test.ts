import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { applyOutputs, LIMITS, findComponent } from '../src/index.js';
import {
  builtinTools,
  outputLimitMessage,
  executeToolCalls,
  ToolInputError,
  type ExecuteToolCallsOptions,
  type ToolCall,
  type ToolDefinition,
} from '../src/server.js';
import { callLimitMessage, defaultParallelMessage, MAX_CALLS_RUN_PER_HOP } from '../src/tools/execute-tool-calls.js';
import { catalog, counterUuids, documentOf, emptyLayout, nestedLayout, pageFields } from './support/tools-fixtures.js';

function options(overrides: Partial<ExecuteToolCallsOptions> = {}): ExecuteToolCallsOptions {
  return {
    tools: builtinTools,
    catalog,
    document: documentOf(nestedLayout),
    pageFields,
    newUuid: counterUuids(),
    ...overrides,
  };
}

function call(id: string, name: string, args: unknown): ToolCall {
  return { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

const placeText = (id: string, body: string, reference = 'footer-1') =>
  call(id, 'place_components', {
    operations: [
      {
        target: 'content',
        placement: 'below',
        reference_uuid: reference,
        components: `- sdc.demo.text: {props: {body: ${body}}}`,
      },
    ],
  });

describe('executeToolCalls', () => {
  it('refuses every call past the outputs one response may carry, telling the model to make it in its next reply', async () => {
    const max = LIMITS.maxOutputsPerHop;
    const titles = Array.from({ length: max + 1 }, (_, index) =>
      call(`t${index + 1}`, 'set_page_value', { field: 'title', value: `Title ${index + 1}` }),
    );
    const details = call('d1', 'get_component_details', { component_ids: ['sdc.demo.text'] });
    const run = await executeToolCalls([...titles, details], options());
    assert.equal(
      run.outputs.length,
      max,
      'a response never carries more, so the next apply_results fits the request limit',
    );
    assert.equal(run.outputs.at(-1)!.call_id, `t${max}`);
    assert.equal(run.results.length, max + 2, 'one readable result per call');
    for (const refused of run.results.slice(max)) {
      assert.equal(refused.ok, false);
      assert.equal(refused.content, outputLimitMessage(refused.name));
    }
    assert.match(outputLimitMessage('set_page_value'), /not executed.*100 page changes.*next reply/s);
    assert.equal(run.document.page.title, `Title ${max}`, 'the refused call changed nothing');
  });

  // Security review 2, audit of work per hop: a reply of many failing calls walked the page once per call, unbounded.
  it('runs at most MAX_CALLS_RUN_PER_HOP calls of one reply, with a pause between calls, and tells the model of the rest', async () => {
    const failing = Array.from({ length: MAX_CALLS_RUN_PER_HOP + 2 }, (_, index) =>
      call(`e${index + 1}`, 'edit_components', { component_edits: `missing-${index}: {title: x}` }),
    );
    let pauses = 0;
    const run = await executeToolCalls(
      failing,
      options({
        pause: async () => {
          pauses += 1;
        },
      }),
    );
    assert.equal(run.results.length, failing.length, 'one readable result per call');
    assert.equal(run.outputs.length, 0);
    for (const ran of run.results.slice(0, MAX_CALLS_RUN_PER_HOP)) assert.match(ran.content, /missing-\d+/);
    for (const refused of run.results.slice(MAX_CALLS_RUN_PER_HOP)) {
      assert.equal(refused.ok, false);
      assert.equal(refused.content, callLimitMessage('edit_components'));
    }
    assert.match(callLimitMessage('edit_components'), /not executed.*128 tool calls.*next reply/s);
    assert.equal(pauses, failing.length - 1, 'a pause before every call but the first');
    assert.ok(
      MAX_CALLS_RUN_PER_HOP > LIMITS.maxOutputsPerHop,
      'a reply of the most changes a response carries runs whole',
    );
  });

  it('refuses a place_components or move_components call of more operations than one call takes, saying so', async () => {
    const placeOperations = Array.from({ length: 21 }, () => ({
      target: 'content',
      placement: 'below',
      reference_uuid: 'footer-1',
      components: '- sdc.demo.text: {props: {body: Hi}}',
    }));
    const moveOperations = Array.from({ length: 21 }, () => ({
      uuids: ['footer-1'],
      target: 'content',
      placement: 'above',
      reference_uuid: 'section-1',
    }));
    const run = await executeToolCalls(
      [
        call('p1', 'place_components', { operations: placeOperations }),
        call('m1', 'move_components', { operations: moveOperations }),
      ],
      options({ tools: builtinTools, declaredOutputs: ['move_components'] }),
    );
    assert.deepEqual(run.outputs, []);
    for (const result of run.results) {
      assert.equal(result.ok, false);
      assert.match(result.content, /operations: at most 20 operations per call; make the others in your next call/);
    }
  });

  it('runs the calls in order and returns one result per call and the outputs in call order', async () => {
    const run = await executeToolCalls(
      [
        call('c1', 'get_component_details', { component_ids: ['sdc.demo.text'] }),
        call('c2', 'set_page_value', { field: 'title', value: 'New title' }),
        placeText('c3', 'Hello'),
        call('c4', 'edit_components', { component_edits: 'hero-1: {theme: dark}' }),
      ],
      options(),
    );
    assert.deepEqual(
      run.results.map((result) => [result.call_id, result.name, result.ok]),
      [
        ['c1', 'get_component_details', true],
        ['c2', 'set_page_value', true],
        ['c3', 'place_components', true],
        ['c4', 'edit_components', true],
      ],
    );
    assert.deepEqual(
      run.outputs.map((output) => [output.type, output.call_id]),
      [
        ['set_page_value', 'c2'],
        ['place_components', 'c3'],
        ['edit_components', 'c4'],
      ],
    );
    assert.ok(run.results[2]!.content.startsWith('Placed 1 component.'));
  });

  it('threads the document: a later call of the hop sees what an earlier one placed', async () => {
    const start = options();
    const run = await executeToolCalls(
      [placeText('c1', 'First'), call('c2', 'edit_components', { component_edits: 'u1: {body: Edited, size: large}' })],
      start,
    );
    assert.equal(run.results[1]!.ok, true, run.results[1]!.content);
    assert.equal(
      run.results[1]!.content,
      "Edited 1 component:\n- u1 (sdc.demo.text): body 'First' → 'Edited'; size 'normal' → 'large'",
    );
    assert.deepEqual(run.document, applyOutputs(start.document, run.outputs));
    assert.deepEqual(findComponent(run.document.layout, 'u1')?.props, { body: 'Edited', size: 'large' });
    // The caller's document is left as it was.
    assert.equal(findComponent(start.document.layout, 'u1'), undefined);
  });

  it('does not execute a second call of a tool whose allow_parallel is false', async () => {
    const run = await executeToolCalls([placeText('c1', 'One'), placeText('c2', 'Two')], options());
    assert.deepEqual(
      run.outputs.map((output) => output.call_id),
      ['c1'],
    );
    assert.deepEqual(run.results[1], {
      call_id: 'c2',
      name: 'place_components',
      content: defaultParallelMessage('place_components'),
      ok: false,
    });
    assert.equal(findComponent(run.document.layout, 'u2'), undefined);
  });

  it("tells the model the agent's configured parallel_message", async () => {
    const parallel_message = 'Place ONE row per call.';
    const run = await executeToolCalls(
      [placeText('c1', 'One'), placeText('c2', 'Two')],
      options({ toolSettings: { place_components: { allow_parallel: false, parallel_message } } }),
    );
    assert.equal(run.results[1]!.content, parallel_message);
    assert.equal(run.outputs.length, 1);
  });

  it("lets the agent's tool_settings override a tool's allow_parallel both ways", async () => {
    const allowed = await executeToolCalls(
      [placeText('c1', 'One'), placeText('c2', 'Two', 'u1')],
      options({ toolSettings: { place_components: { allow_parallel: true } } }),
    );
    assert.deepEqual(
      allowed.outputs.map((output) => output.call_id),
      ['c1', 'c2'],
    );
    assert.deepEqual(
      allowed.document.layout.regions.content!.components.map((node) => node.uuid),
      ['section-1', 'footer-1', 'u1', 'u2'],
    );

    const forbidden = await executeToolCalls(
      [
        call('c1', 'set_page_value', { field: 'title', value: 'A' }),
        call('c2', 'set_page_value', { field: 'description', value: 'B' }),
      ],
      options({ toolSettings: { set_page_value: { allow_parallel: false } } }),
    );
    assert.deepEqual(
      forbidden.results.map((result) => result.ok),
      [true, false],
    );
    assert.equal(forbidden.document.page.description, undefined);
  });

  it('counts a refused first call: the second call of a non-parallel tool is still skipped', async () => {
    const run = await executeToolCalls(
      [call('c1', 'place_components', '{"operations": ['), placeText('c2', 'Two')],
      options(),
    );
    assert.deepEqual(
      run.results.map((result) => result.ok),
      [false, false],
    );
    assert.equal(run.results[1]!.content, defaultParallelMessage('place_components'));
  });

  it('answers an unknown tool with the available ones', async () => {
    const run = await executeToolCalls([call('c1', 'delete_components', {})], options());
    assert.equal(run.results[0]!.ok, false);
    assert.equal(
      run.results[0]!.content,
      'Unknown tool `delete_components`. Available tools: place_components, edit_components, set_page_value, remove_components, move_components, get_component_details, ask_question, request_screenshot, propose_plan.',
    );
    assert.deepEqual(run.outputs, []);
  });

  it('answers malformed JSON arguments readably, without an output', async () => {
    const run = await executeToolCalls([call('c1', 'set_page_value', '{"field": "title", "value": ')], options());
    assert.equal(run.results[0]!.ok, false);
    assert.match(
      run.results[0]!.content,
      /^The arguments of set_page_value are not valid JSON \(.+\)\. Send one JSON object/,
    );
    assert.deepEqual(run.outputs, []);
  });

  it('refuses arguments nested too deeply before the schema walks them', async () => {
    const deep = `{"field": "title", "value": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const run = await executeToolCalls([call('c1', 'set_page_value', deep)], options());
    assert.equal(run.results[0]!.ok, false);
    assert.match(run.results[0]!.content, /^The arguments of set_page_value: JSON nested deeper than 64 levels/);
  });

  it('answers arguments that fail the input schema with the fields at fault', async () => {
    const run = await executeToolCalls(
      [
        call('c1', 'place_components', {
          operations: [{ target: 'content', placement: 'beside', components: '- sdc.demo.grid:' }],
        }),
      ],
      options(),
    );
    assert.equal(run.results[0]!.ok, false);
    assert.match(
      run.results[0]!.content,
      /^The arguments of place_components do not match its parameters:\n- operations\.0\.placement: /,
    );
  });

  it('turns a ToolInputError into a readable result and applies nothing', async () => {
    const start = options();
    const run = await executeToolCalls([call('c1', 'set_page_value', { field: 'slug', value: 'x' })], start);
    assert.deepEqual(run.results[0], {
      call_id: 'c1',
      name: 'set_page_value',
      content:
        'set_page_value was not applied: the page has no field `slug`; the fields you can set are: title (Page title), description (Meta description)',
      ok: false,
    });
    assert.equal(run.document, start.document);
  });

  it('lets any other exception propagate, so the hop fails', async () => {
    const crashing: ToolDefinition<Record<string, never>> = {
      name: 'crash',
      description: 'Always fails.',
      input: z.object({}),
      allowParallel: true,
      execute() {
        throw new TypeError('database unreachable');
      },
    };
    await assert.rejects(
      executeToolCalls([call('c1', 'crash', {})], options({ tools: { crash: crashing } })),
      /database unreachable/,
    );
  });

  it("refuses a custom tool's output that the layout cannot take, and keeps going", async () => {
    const careless: ToolDefinition<{ uuid: string }> = {
      name: 'retitle',
      description: 'Sets a card title without checking the uuid.',
      input: z.object({ uuid: z.string() }),
      allowParallel: true,
      execute: async (input, context) => ({
        result: 'done',
        output: {
          type: 'edit_components',
          call_id: context.callId,
          component_updates: { [input.uuid]: { title: 'X' } },
        },
      }),
    };
    const run = await executeToolCalls(
      [call('c1', 'retitle', { uuid: 'ghost' }), call('c2', 'retitle', { uuid: 'card-1' })],
      options({ tools: { retitle: careless } }),
    );
    assert.equal(run.results[0]!.ok, false);
    assert.match(
      run.results[0]!.content,
      /^retitle produced a change that cannot be applied to the page: no component "ghost"/,
    );
    assert.deepEqual(
      run.outputs.map((output) => output.call_id),
      ['c2'],
    );
  });

  it('fails the hop when a tool returns an output for another call', async () => {
    const confused: ToolDefinition<Record<string, never>> = {
      name: 'confused',
      description: 'Names the wrong call.',
      input: z.object({}),
      allowParallel: true,
      execute: () => ({
        result: 'ok',
        output: { type: 'set_page_value', call_id: 'other', field: 'title', value: 'x' },
      }),
    };
    await assert.rejects(
      executeToolCalls([call('c1', 'confused', '')], options({ tools: { confused } })),
      /output for call "other"/,
    );
  });

  it('passes the call id, the catalog, the page fields and newUuid to the tool', async () => {
    const seen: unknown[] = [];
    const probe: ToolDefinition<Record<string, never>> = {
      name: 'probe',
      description: 'Records its context.',
      input: z.object({}),
      allowParallel: true,
      execute(_input, context) {
        seen.push([context.callId, context.catalog === catalog, context.pageFields.length, context.newUuid()]);
        throw new ToolInputError('nothing to do');
      },
    };
    const run = await executeToolCalls(
      [call('c7', 'probe', '  ')],
      options({ tools: { probe }, document: documentOf(emptyLayout) }),
    );
    assert.deepEqual(seen, [['c7', true, 2, 'u1']]);
    assert.equal(run.results[0]!.content, 'nothing to do');
  });

  it('returns nothing for no calls', async () => {
    const start = options();
    assert.deepEqual(await executeToolCalls([], start), { outputs: [], results: [], document: start.document });
  });
});
