import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HopRequest, PROTOCOL_VERSION, type HopResponse, type ToolOutput } from '../src/index.js';
import {
  type Scenario,
  checkHop,
  driveScenario,
  matchScenario,
  noScenarioAnswer,
  normalizeUserMessage,
  scenarioMessagesFor,
  type ScenarioHop,
} from '../src/scenario/index.js';
import { loadFixtures } from '../src/node/index.js';

const fixtures = await loadFixtures();
const byId = (id: string): Scenario => fixtures.scenarios.find((scenario) => scenario.id === id)!;

describe('matchScenario', () => {
  const query = { mainAgent: 'qa' };

  it('picks the scenario of the same agent and the same normalized user message', () => {
    const found = matchScenario(fixtures.scenarios, {
      ...query,
      agent: 'page_builder',
      userMessage: '  BUILD a homepage\n for a   cookie shop ',
    });
    assert.equal(found?.id, 'cookie-shop');
  });

  it('treats an absent agent as the main agent, on both sides', () => {
    const found = matchScenario(fixtures.scenarios, {
      ...query,
      userMessage: 'How do I get the assistant to change my page?',
    });
    assert.equal(found?.id, 'qa-one-hop');
    assert.equal(
      matchScenario(fixtures.scenarios, { ...query, agent: 'qa', userMessage: found!.user_message })?.id,
      'qa-one-hop',
    );
  });

  it('finds nothing for the right message sent to another agent', () => {
    assert.equal(
      matchScenario(fixtures.scenarios, {
        ...query,
        agent: 'copy_editor',
        userMessage: 'Build a homepage for a cookie shop',
      }),
      undefined,
    );
  });

  it('normalizes by trimming, collapsing whitespace and lower-casing only', () => {
    assert.equal(normalizeUserMessage('\tAdd  a\nHero. '), 'add a hero.');
  });

  it('explains scripted mode with the messages the agent understands', () => {
    const messages = scenarioMessagesFor(fixtures.scenarios, 'copy_editor', 'qa');
    assert.ok(messages.includes('Polish the wording of the cards and the kitchen text'), messages.join(', '));
    const answer = noScenarioAnswer(messages);
    assert.match(answer, /scripted mode/);
    assert.match(answer, /"Polish the wording of the cards and the kitchen text"/);
    assert.match(answer, /model provider/);
    assert.equal(answer.split('To talk to a real model').length - 1, 1, 'one way to a real model, not two');
    assert.ok(
      noScenarioAnswer([], 'Start it with --provider openai.').endsWith(
        'It knows no message for this agent. Start it with --provider openai.',
      ),
    );
  });
});

/** A response as a server would send it for one hop. */
function response(hop: number, fields: Partial<HopResponse> & { outputs?: ToolOutput[] }): HopResponse {
  return {
    status: true,
    protocol: PROTOCOL_VERSION,
    request_id: 'turn-1',
    hop,
    agent: { id: 'page_builder', label: 'Page builder' },
    outputs: [],
    progress: '',
    should_continue: true,
    ...fields,
  } as HopResponse;
}

const placeBelow = (callId: string, reference: string, uuids: string[]): ToolOutput => ({
  type: 'place_components',
  call_id: callId,
  operations: [
    {
      target: 'content',
      placement: 'below',
      reference_uuid: reference,
      components: [
        {
          uuid: uuids[0]!,
          component: 'sdc.demo.section',
          props: {},
          slots: { content: [{ uuid: uuids[1]!, component: 'sdc.demo.text', props: { body: 'Hi' } }] },
        },
      ],
    },
  ],
});

describe('checkHop', () => {
  const cookieHop3 = byId('cookie-shop').hops[2]!;

  it('finds nothing wrong with a hop as the scenario expects it', () => {
    const hop: ScenarioHop = {
      person_before_outputs: [],
      person_after_outputs: [],
      conflicts: [],
      should_continue: true,
      outputs: [
        {
          type: 'place_components',
          call_id: 'call_2',
          placed: ['sdc.demo.section', 'sdc.demo.text'],
          operations: [{ target: 'content', placement: 'below', reference_uuid: '{{placed.1}}' }],
        },
      ],
      progress: 'One\n\nTwo',
    };
    const got = response(3, { outputs: [placeBelow('call_2', 'hero-uuid', ['s-1', 't-1'])], progress: 'One\n\nTwo' });
    assert.deepEqual(checkHop(hop, got, ['hero-uuid']), []);
  });

  it('reports missing outputs as one sentence naming the hop', () => {
    const got = response(3, { progress: cookieHop3.progress });
    assert.deepEqual(checkHop(cookieHop3, got, ['hero-uuid']), [
      'hop 3: expected outputs [place_components call_2] but got []',
    ]);
  });

  it('reports placed components, operations and references that differ', () => {
    const got = response(3, {
      outputs: [placeBelow('call_2', 'someone-else', ['s-1', 't-1'])],
      progress: cookieHop3.progress,
    });
    assert.deepEqual(checkHop(cookieHop3, got, ['hero-uuid']), [
      'hop 3: output call_2: expected placed [sdc.demo.section, sdc.demo.grid, sdc.demo.card, sdc.demo.card, sdc.demo.card] but got [sdc.demo.section, sdc.demo.text]',
      'hop 3: output call_2: expected operations [below hero-uuid in content] but got [below someone-else in content]',
    ]);
  });

  it('reports a reference to a component the turn has not placed', () => {
    const got = response(3, {
      outputs: [placeBelow('call_2', 'hero-uuid', ['s-1', 't-1'])],
      progress: cookieHop3.progress,
    });
    const hop: ScenarioHop = {
      ...cookieHop3,
      outputs: [
        {
          type: 'place_components',
          call_id: 'call_2',
          operations: [{ target: 'content', placement: 'below', reference_uuid: '{{placed.9}}' }],
        },
      ],
    };
    const [first] = checkHop(hop, got, ['hero-uuid']);
    assert.match(
      first!,
      /^hop 3: output call_2: \{\{placed\.9\}\} refers to a component not placed yet \(3 placed so far\)/,
    );
  });

  it('resolves symbolic uuids in component_updates and compares the props as JSON', () => {
    const hop = byId('load-then-edit').hops[3]!;
    const edit = (props: Record<string, string>): ToolOutput => ({
      type: 'edit_components',
      call_id: 'call_edit',
      component_updates: { 'testimonial-uuid': props },
    });
    const good = response(4, {
      outputs: [edit({ role: 'Regular since 2019' })],
      progress: hop.progress,
      should_continue: true,
    });
    assert.deepEqual(checkHop(hop, good, ['testimonial-uuid']), []);
    const bad = response(4, { ...good, outputs: [edit({ role: 'New customer' })] });
    assert.deepEqual(checkHop(hop, bad, ['testimonial-uuid']), [
      'hop 4: output call_edit: expected component_updates {"testimonial-uuid":{"role":"Regular since 2019"}} but got {"testimonial-uuid":{"role":"New customer"}}',
    ]);
  });

  it('reports progress, should_continue, message and finish_reason that differ', () => {
    const hop = byId('max-hops').hops[4]!;
    const got = response(5, { outputs: [], progress: 'Something else' });
    const mismatches = checkHop(hop, got, []);
    assert.equal(mismatches[0], 'hop 5: expected should_continue false but got true');
    assert.match(
      mismatches[1]!,
      /^hop 5: expected progress "I'll start.*" but got "Something else" \(they differ from character 0\)$/,
    );
    assert.equal(mismatches[2], `hop 5: expected message ${JSON.stringify(hop.message)} but got nothing`);
    assert.equal(mismatches[3], 'hop 5: expected finish_reason "max_hops" but got nothing');
    assert.equal(mismatches.length, 4);
  });

  it('checks the field and value of set_page_value outputs', () => {
    const hop = byId('cookie-shop').hops[6]!;
    const got = response(7, {
      outputs: [
        {
          type: 'set_page_value',
          call_id: 'call_6',
          field: 'title',
          value: 'Crumb & Co. | Fresh cookies, baked every morning',
        },
        { type: 'set_page_value', call_id: 'call_7', field: 'summary', value: 'Cookies.' },
      ],
      progress: hop.progress,
      should_continue: true,
    });
    assert.deepEqual(checkHop(hop, got, []), [
      'hop 7: output call_7: expected field "description" but got "summary"',
      `hop 7: output call_7: expected value ${JSON.stringify(hop.outputs[1]!.value)} but got "Cookies."`,
    ]);
  });
});

/** A fake endpoint: records every request and answers from a list, in order. */
function fakeServer(answers: Array<(request: HopRequest) => { status: number; body: unknown }>) {
  const seen: Array<{ method: string; url: string; contentType: string | null; body: unknown; form?: FormData }> = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === 'DELETE') {
      seen.push({ method: 'DELETE', url: request.url, contentType: null, body: undefined });
      return Response.json({ status: true, request_id: 'x', cancelled: true });
    }
    const contentType = request.headers.get('content-type');
    let hop: HopRequest;
    let form: FormData | undefined;
    if (contentType?.startsWith('multipart/form-data')) {
      form = await request.formData();
      hop = HopRequest.parse(JSON.parse(form.get('request') as string));
    } else {
      hop = HopRequest.parse(await request.json());
    }
    seen.push({ method: request.method, url: request.url, contentType, body: hop, ...(form ? { form } : {}) });
    const answer = answers[seen.filter((entry) => entry.method === 'POST').length - 1];
    const { status, body } = answer ? answer(hop) : { status: 500, body: { error: { code: 'internal_error' } } };
    return Response.json(body, { status });
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

describe('driveScenario', () => {
  const hero = byId('place-hero-two-hop');
  const heroOutput = (hop: HopRequest): ToolOutput => ({
    type: 'place_components',
    call_id: 'call_hero',
    operations: [
      {
        target: 'content',
        placement: 'inside',
        components: [
          { uuid: `hero-of-${hop.request_id}`, component: 'sdc.demo.hero', props: { heading: 'Crumb & Co.' } },
        ],
      },
    ],
  });
  const correctHop1 = (hop: HopRequest) => ({
    status: 200,
    body: response(1, { request_id: hop.request_id, progress: hero.hops[0]!.progress }),
  });
  const correctHop2 = (hop: HopRequest) => ({
    status: 200,
    body: response(2, {
      request_id: hop.request_id,
      outputs: [heroOutput(hop)],
      progress: hero.hops[1]!.progress,
      should_continue: true,
    }),
  });
  // The answer comes once the client reported on the hero (spec §2 step 5).
  const correctHop3 = (hop: HopRequest) => ({
    status: 200,
    body: response(3, {
      request_id: hop.request_id,
      progress: hero.hops[2]!.progress,
      should_continue: false,
      message: hero.hops[2]!.message!,
      finish_reason: 'answer',
    }),
  });

  it('sends each hop built from the document it keeps, and passes when every hop matches', async () => {
    const server = fakeServer([correctHop1, correctHop2, correctHop3]);
    const run = await driveScenario(hero, {
      endpoint: 'http://fake.test/api/hop',
      fetch: server.fetch,
      fixtures,
      requestId: 'turn-a',
      conversationId: 'chat-1',
    });
    assert.equal(run.passed, true);
    const [hop1, hop2, hop3] = server.seen.map((entry) => entry.body as HopRequest);
    assert.deepEqual(hop1!.messages, [{ role: 'user', text: hero.user_message }]);
    assert.equal(hop1!.agent, 'page_builder');
    assert.equal(hop1!.conversation_id, 'chat-1');
    assert.equal(hop1!.apply_results, undefined);
    assert.equal(hop2!.messages, undefined);
    assert.deepEqual(hop2!.apply_results, []);
    assert.deepEqual(hop3!.apply_results, [{ call_id: 'call_hero', status: 'applied' }]);
    assert.equal(run.document.layout.regions.content!.components[0]!.uuid, 'hero-of-turn-a');
  });

  it('reports a wrong hop without stopping, and a mismatch makes the run fail', async () => {
    const wrong = (hop: HopRequest) => ({
      status: 200,
      body: response(1, { request_id: hop.request_id, progress: 'Hello' }),
    });
    const server = fakeServer([wrong, correctHop2, correctHop3]);
    const run = await driveScenario(hero, {
      endpoint: 'http://fake.test/api/hop',
      fetch: server.fetch,
      fixtures,
      requestId: 'turn-b',
    });
    assert.equal(run.passed, false);
    assert.equal(run.hops.length, 3);
    assert.match(run.hops[0]!.mismatches[0]!, /^hop 1: expected progress "I'll add a hero/);
    assert.deepEqual(run.hops[1]!.mismatches, []);
    assert.deepEqual(run.hops[2]!.mismatches, []);
  });

  it('stops at an error status, names the error code, and cancels nothing that was not continuing', async () => {
    const failing = () => ({
      status: 409,
      body: {
        status: false,
        should_continue: false,
        progress: '',
        message: 'busy',
        error: { code: 'hop_in_progress' },
      },
    });
    const server = fakeServer([failing]);
    const run = await driveScenario(hero, { endpoint: 'http://fake.test/api/hop', fetch: server.fetch, fixtures });
    assert.equal(run.passed, false);
    assert.deepEqual(
      run.hops.map((hop) => hop.mismatches),
      [['hop 1: expected HTTP 200 but got 409 (hop_in_progress: busy)']],
    );
    assert.deepEqual(
      server.seen.map((entry) => entry.method),
      ['POST'],
    );
  });

  it('cancels the turn with DELETE when it stops while the server would continue', async () => {
    const qa = byId('qa-one-hop');
    const continuing = (hop: HopRequest) => ({ status: 200, body: response(1, { request_id: hop.request_id }) });
    const server = fakeServer([continuing]);
    const run = await driveScenario(qa, {
      endpoint: 'http://fake.test/api/hop',
      fetch: server.fetch,
      fixtures,
      requestId: 'turn-c',
    });
    assert.equal(run.passed, false);
    assert.ok(run.hops[0]!.mismatches.includes('hop 1: expected should_continue false but got true'));
    assert.deepEqual(
      server.seen.map((entry) => `${entry.method} ${entry.url}`),
      ['POST http://fake.test/api/hop', 'DELETE http://fake.test/api/hop/turn-c'],
    );
  });

  it('sends hop 1 as multipart with the attachment when the scenario has one, and later hops as JSON', async () => {
    const photo = byId('image-attachment');
    const server = fakeServer([
      (hop) => ({ status: 200, body: response(1, { request_id: hop.request_id, progress: photo.hops[0]!.progress }) }),
      (hop) => ({
        status: 200,
        body: response(2, {
          request_id: hop.request_id,
          progress: photo.hops[1]!.progress,
          should_continue: false,
          message: 'x',
          finish_reason: 'answer',
        }),
      }),
    ]);
    await driveScenario(photo, { endpoint: 'http://fake.test/api/hop', fetch: server.fetch, fixtures });
    assert.match(server.seen[0]!.contentType!, /^multipart\/form-data; boundary=/);
    const files = server.seen[0]!.form!.getAll('attachments') as File[];
    assert.equal(files.length, 1);
    assert.equal(files[0]!.name, 'cookie.png');
    assert.equal(files[0]!.type, 'image/png');
    assert.deepEqual(new Uint8Array(await files[0]!.arrayBuffer()), fixtures.attachments['attachments/cookie.png']);
    assert.equal(server.seen[1]!.contentType, 'application/json');
  });

  it('reports an output the shared reducer cannot apply, and says so in apply_results', async () => {
    const badOutput = (hop: HopRequest): ToolOutput => {
      const output = heroOutput(hop) as Extract<ToolOutput, { type: 'place_components' }>;
      return { ...output, operations: [{ ...output.operations[0]!, target: 'sidebar' }] };
    };
    const edit = byId('load-then-edit');
    const server = fakeServer([
      (hop) => ({
        status: 200,
        body: response(1, { request_id: hop.request_id, outputs: [badOutput(hop)], progress: edit.hops[0]!.progress }),
      }),
      (hop) => ({ status: 200, body: response(2, { request_id: hop.request_id, progress: edit.hops[1]!.progress }) }),
    ]);
    const run = await driveScenario(edit, { endpoint: 'http://fake.test/api/hop', fetch: server.fetch, fixtures });
    assert.ok(
      run.hops[0]!.mismatches.includes(
        'hop 1: output call_hero could not be applied: no region "sidebar" in the layout',
      ),
    );
    const hop2 = server.seen[1]!.body as HopRequest;
    assert.deepEqual(hop2.apply_results, [
      { call_id: 'call_hero', status: 'rejected', reason: 'no region "sidebar" in the layout' },
    ]);
  });
});
