// When the person edits during a turn (spec §16), in the element against the reference server's msw mock: the
// host boundary is checked before anything is sent, and every output the editor did not apply is told to the person.
import { applyOutputs, type CanvasDocument, type ComponentNode, type ToolOutput } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import type { CanvasAiChat } from '../src/index.js';
import { expect, waitUntil } from '@open-wc/testing';
import {
  bubbles,
  errorBubbles,
  mountChat,
  pickAgent,
  progressBlocks,
  sendAndWait,
  unmountAll,
} from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

async function setup(start?: CanvasDocument) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost(start ?? { layout: fixtures.layouts['layouts/empty.yaml']!, page: {} });
  return { fixtures, record, host };
}

function noticeTexts(element: CanvasAiChat): string[] {
  return [...element.chat!.shadowRoot!.querySelectorAll('.canvas-ai-notice')].map((notice) => notice.textContent ?? '');
}

describe('<canvas-ai-chat> when the person edits during a turn', () => {
  afterEach(unmountAll);

  it('sends nothing when getLayout returns a uuid twice, and names getLayout and the uuid', async () => {
    const { record, host } = await setup();
    const card = (uuid: string): ComponentNode => ({ uuid, component: 'sdc.demo.card', props: { title: 'A' } });
    host.document = { layout: { regions: { content: { components: [card('card-1'), card('card-1')] } } }, page: {} };
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });
      const end = await sendAndWait(element, 'Add a hero for my bakery, Crumb & Co.');

      expect(end.detail.status).to.equal('error');
      expect(end.detail.error?.kind).to.equal('host');
      expect(record.posts(), 'no hop was sent').to.have.length(0);
      const shown = errorBubbles(element).map((bubble) => bubble.textContent ?? '');
      expect(shown.join(' ')).to.match(/getLayout\(\) returned a document that cannot be sent/);
      expect(shown.join(' ')).to.include('"card-1" appears twice');
      expect(String(logged[0]?.[0])).to.include('getLayout()');
      expect(String(logged[0]?.[0])).to.include('card-1');
    } finally {
      console.error = original;
    }
  });

  it('says what is wrong with a document of the wrong shape instead of sending a request without a layout', async () => {
    const { fixtures, record } = await setup();
    const element = await mountChat({
      getLayout: () => ({ current_layout: fixtures.layouts['layouts/empty.yaml'] }) as never,
      applyOutputs: () => undefined,
    });
    const original = console.error;
    console.error = () => undefined;
    try {
      const end = await sendAndWait(element, 'Add a hero for my bakery, Crumb & Co.');
      expect(end.detail.error?.message).to.include('it has current_layout: name it layout');
      expect(record.posts()).to.have.length(0);
    } finally {
      console.error = original;
    }
  });

  it('keeps the heading the person typed while the edit ran, and shows the notice', async () => {
    const { host, record } = await setup();
    const conflict = await scenario('coedit-heading-conflict');
    const placed: string[] = [];
    // The person retypes the hero's heading while hop 3 runs: just before the host applies its outputs.
    const apply = host.applyOutputs;
    host.applyOutputs = (outputs, response, info) => {
      // The hop from `info`: a streamed hop's outputs come before its response (`response` undefined).
      const hop = info?.kind === 'hop' ? info.hop : undefined;
      if (hop === 2)
        placed.push(
          ...outputs.flatMap((o) =>
            o.type === 'place_components' ? o.operations[0]!.components.map((c) => c.uuid) : [],
          ),
        );
      if (hop === 3) {
        host.document = applyOutputs(host.document, [
          {
            type: 'edit_components',
            call_id: 'person',
            component_updates: { [placed[0]!]: { heading: 'Fresh every day' } },
          },
        ]);
      }
      return apply(outputs, response, info);
    };
    const element = await mountChat({
      agentsEndpoint: '/api/agents',
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
    });
    await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
    await pickAgent(element, 'page_builder');

    const end = await sendAndWait(element, conflict.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    const hero = host.document.layout.regions.content!.components[0]!;
    expect(hero.props.heading).to.equal('Fresh every day');
    const notices = noticeTexts(element);
    expect(notices).to.have.length(1);
    expect(notices[0]).to.match(
      /^Your edit was kept: you changed the heading \(“Fresh every day”\) while the agent worked/,
    );
    // Hop 4 reports the conflict to the server, which gives the model one more decision.
    const reported = record.posts()[3]!.body.apply_results!;
    const [first] = reported[0]!.conflicts!;
    expect(first && 'prop' in first ? first.actual : undefined).to.equal('Fresh every day');
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(conflict.hops.at(-1)!.message!);
  });

  it('tells the person an output was rejected, and the answer is the decision made after hearing it', async () => {
    const { host } = await setup();
    const rejected = await scenario('host-rejects-final-output');
    // A host whose title is locked: it rejects every set_page_value.
    const apply = host.applyOutputs;
    host.applyOutputs = (outputs, response, info) => {
      const results = apply(
        outputs.filter((output) => output.type !== 'set_page_value'),
        response,
        info,
      );
      return [
        ...results,
        ...outputs
          .filter((output) => output.type === 'set_page_value')
          .map((output) => ({
            call_id: output.call_id,
            status: 'rejected' as const,
            reason: "The page title is locked by the site's owner.",
          })),
      ];
    };
    const element = await mountChat({
      agentsEndpoint: '/api/agents',
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
    });
    await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
    await pickAgent(element, 'page_builder');

    const end = await sendAndWait(element, rejected.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    expect(noticeTexts(element)).to.deep.equal([
      "The page title could not be applied: The page title is locked by the site's owner.",
    ]);
    const texts = bubbles(element).map((bubble) => bubble.textContent!.trim());
    expect(texts).to.include(rejected.replies[2]!.text);
    expect(texts.join(' ')).not.to.include('The page title is now');
    expect(progressBlocks(element)).to.have.length(1);
  });

  it('works with a revision 1.0 server: the turn ends with outputs and no replaces, rejections are still shown', async () => {
    const hero: ToolOutput = {
      type: 'place_components',
      call_id: 'call_hero',
      operations: [
        {
          target: 'content',
          placement: 'inside',
          components: [{ uuid: 'hero-9', component: 'sdc.demo.hero', props: { heading: 'Crumb & Co.' } }],
        },
      ],
    };
    // A 1.0 server: the last response carries outputs (one impossible: its target region does not exist).
    const broken: ToolOutput = {
      ...hero,
      call_id: 'call_bad',
      operations: [{ ...hero.operations[0]!, target: 'sidebar' }],
    };
    const server = hopServer([
      continuing({ progress: 'Adding a hero.' }),
      final({ progress: 'Adding a hero.', outputs: [hero, broken], message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });

    const end = await sendAndWait(element, 'Add a hero');

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    expect(host.document.layout.regions.content!.components.map((node) => node.uuid)).to.deep.equal(['hero-9']);
    expect(noticeTexts(element)).to.have.length(1);
    expect(noticeTexts(element)[0]).to.match(/^A new section could not be applied: /);
    expect(server.received).to.have.length(2, 'nothing follows the final response: a 1.0 server never hears it');
  });
});
