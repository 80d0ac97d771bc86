// Translation: every text the chat shows comes from `strings`, and a right-to-left page lays the chat out mirrored.
import { TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import type { ChatStrings } from '../src/canvas-ai-chat/strings.js';
import {
  chatRoot,
  errorBubbles,
  mountChat,
  pickAgent,
  pickerRoot,
  progressBlocks,
  sendAndWait,
  unmountAll,
} from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { holdHop } from './support/hold.js';
import { continuing, deferred, final, hopServer } from './support/hop-server.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

/** Every string in Arabic: the type makes the list complete. */
const ARABIC: ChatStrings = {
  placeholder: 'اسأل المساعد…',
  working: 'جارٍ العمل…',
  done: 'تم',
  stopped: 'توقف',
  failed: 'توقف بسبب خطأ',
  notRun: 'لم يُنفَّذ:',
  stop: 'إيقاف',
  stopLabel: 'أوقف الوكيل',
  revert: 'إيقاف وتراجع',
  revertLabel: 'أوقف الوكيل وتراجع عما غيّره',
  undo: 'تراجع',
  undoLabel: 'تراجع عن آخر دور للوكيل',
  busy: 'انتظر الإجابة الحالية أو أوقفها قبل إرسال رسالة أخرى.',
  youStopped: 'لقد أوقفت الوكيل.',
  resumeGone: 'تعذر استئناف الدور.',
  pickAgent: 'اختر وكيلًا للرسالة التالية',
  agentList: 'الوكلاء',
  backTo: (agent) => `العودة إلى ${agent}`,
  toolGone: (tool) => `لم يعد ${tool} متاحًا.`,
  announcer: 'تحديثات المحادثة',
  questionLabel: 'يسأل الوكيل:',
  questionOwnAnswer: 'إجابتك',
  questionAnswer: 'أجب',
  questionDismiss: 'تجاهل',
  questionEmpty: 'اختر إجابة أو اكتب إجابتك.',
  questionAsked: (question) => `يسأل الوكيل: ${question}`,
  screenshotTaken: 'يلقي الوكيل نظرة على الصفحة.',
  planLabel: 'يخطط الوكيل لهذه الصفوف:',
  planFeedback: 'ما الذي يجب تغييره؟',
  planApprove: 'وافق وابنِ',
  planRevise: 'راجِع',
  planCancel: 'إلغاء',
  planFeedbackEmpty: 'اكتب ما يجب تغييره في الخطة.',
  planShown: (titles) => `يقترح الوكيل خطة من ${titles.length} صفوف: ${titles.join('؛ ')}`,
  approvalLabel: 'يطلب الوكيل موافقتك قبل هذه التغييرات:',
  approvalApprove: 'موافقة',
  approvalReject: 'رفض',
  approvalAsked: (changes) => `يطلب الوكيل موافقتك على ${changes} تغيير`,
  approvalChange: (type, components) => `${type}: ${components}`,
  approvalComponent: ({ name, text }) => `${name}${text ? ` «${text}»` : ''}`,
  send: 'إرسال',
  messages: 'الرسائل',
  turnError: () => 'حدث خطأ.',
  originNotAllowed: (server, page) => `لا يسمح الخادم ${server} بصفحات ${page}.`,
  notApplied: (change) => `${change}: لم يُطبَّق`,
  editKept: () => 'احتُفظ بتعديلك.',
  undoKept: (change) => `${change}: احتُفظ بتعديلك`,
  undoRefused: (change) => `${change}: تعذر التراجع`,
  noInverse: (change) => `${change}: لا تراجع`,
  gone: 'لم يعد في الصفحة.',
  undoSummary: (kind, status) => (status === 'undone' ? `${kind === 'undo' ? 'تم التراجع' : 'أُوقف وتُرُوجِع'}.` : '…'),
  historyUndone: 'تراجعت عن دور الوكيل في المحرر.',
  historyRedone: 'أعدت دور الوكيل في المحرر.',
  change: () => 'تغيير',
  componentLabel: () => 'مكوّن',
  componentAt: (label, place) => (place ? `${label}، الصف ${place.row}` : label),
  unknownComponent: 'مكوّن',
  keptValue: (_kind, name) => name,
  cleared: 'فارغ',
  unknownChange: 'تغيير',
};

/** Text in Latin letters: what would be an English string left over. */
const LATIN = /[A-Za-z]/;

const toolbar = (element: CanvasAiChat) => element.shadowRoot!.querySelector<HTMLElement>('[part="toolbar"]')!;
const button = (element: CanvasAiChat, part: string) =>
  element.shadowRoot!.querySelector<HTMLButtonElement>(`[part~="${part}"]`);

describe('<canvas-ai-chat> strings and right-to-left', () => {
  afterEach(unmountAll);

  it('shows only the host strings in its controls, status rows and notes, mirrored in a dir=rtl page', async () => {
    const fixtures = await loadFixtures();
    const hero = await scenario('place-hero-two-hop');
    const held = holdHop(2);
    await useHandlers(held.handler, ...createMockHandlers(fixtures));
    const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
    const container = document.createElement('div');
    container.dir = 'rtl';
    container.lang = 'ar';
    container.style.width = '640px';
    document.body.append(container);
    try {
      const element = await mountChat(
        {
          strings: ARABIC,
          agentsEndpoint: '/api/agents',
          getLayout: host.getLayout,
          applyOutputs: host.applyOutputs,
          outputTypes: [...TOOL_OUTPUT_TYPES],
        },
        container,
      );
      await waitUntil(() => pickerRoot(element)?.querySelector('[part="button"]'), 'the agents config did not load');
      const wrench = pickerRoot(element)!.querySelector('[part="button"]')!;
      expect(wrench.getAttribute('aria-label')).to.equal(ARABIC.pickAgent);
      const input = chatRoot(element).querySelector('#text-input')!;
      expect(input.getAttribute('aria-label')).to.equal(ARABIC.placeholder);
      expect(chatRoot(element).querySelector('.input-button')!.getAttribute('aria-label')).to.equal(ARABIC.send);
      expect(chatRoot(element).querySelector('#messages')!.getAttribute('aria-label')).to.equal(ARABIC.messages);
      await pickAgent(element, 'page_builder');
      const chip = pickerRoot(element)!.querySelector('[part="chip-clear"]')!;
      expect(chip.getAttribute('aria-label')).to.equal(ARABIC.backTo('Ask about the editor'));

      const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
        element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
      );
      element.sendMessage(hero.user_message);
      await held.arrived;
      await element.updateComplete;
      // Mid-turn: the stop controls and the status row, all in Arabic.
      expect(button(element, 'stop-button')!.textContent!.trim()).to.equal(ARABIC.stop);
      expect(button(element, 'stop-button')!.getAttribute('aria-label')).to.equal(ARABIC.stopLabel);
      expect(button(element, 'revert-button')!.textContent!.trim()).to.equal(ARABIC.revert);
      expect(progressBlocks(element)[0]!.querySelector('.canvas-ai-progress-label')!.textContent).to.equal(
        ARABIC.working,
      );
      expect(element.sendMessage('another')).to.equal(false);
      await element.updateComplete;
      expect(element.shadowRoot!.querySelector('[part="notice"]')!.textContent).to.equal(ARABIC.busy);
      expect(LATIN.test(toolbar(element).textContent!), toolbar(element).textContent!).to.equal(false);

      // Right to left: the toolbar runs from the right, so its end (the stop button) sits left of its start.
      const bar = toolbar(element).getBoundingClientRect();
      expect(getComputedStyle(toolbar(element)).direction).to.equal('rtl');
      expect(button(element, 'stop-button')!.getBoundingClientRect().right).to.be.lessThan(bar.left + bar.width / 2);
      const picker = element.shadowRoot!.querySelector('canvas-ai-tool-picker')!.getBoundingClientRect();
      expect(picker.left, 'the picker starts on the right').to.be.greaterThan(bar.left + bar.width / 2);
      const messages = chatRoot(element).querySelector<HTMLElement>('#messages')!;
      expect(getComputedStyle(messages).direction).to.equal('rtl');

      // Mirrored bubbles: the person's at the end side (left in Arabic), the agent's at the start side (right).
      const box = messages.getBoundingClientRect();
      const middle = box.left + box.width / 2;
      const userBubble = chatRoot(element).querySelector('.user-message-text')!.getBoundingClientRect();
      expect(userBubble.right, 'the user bubble sits left').to.be.lessThan(middle);
      const reply = progressBlocks(element)[0]!.getBoundingClientRect();
      expect(box.right - reply.right, 'the reply starts at the right edge').to.be.lessThan(box.width / 4);

      held.release();
      expect((await ended).detail.status).to.equal('done');
      await element.updateComplete;
      expect(progressBlocks(element)[0]!.querySelector('.canvas-ai-progress-label')!.textContent).to.equal(ARABIC.done);
      expect(button(element, 'undo-button')!.textContent!.trim()).to.equal(ARABIC.undo);
      expect(button(element, 'undo-button')!.getAttribute('aria-label')).to.equal(ARABIC.undoLabel);
      await element.undo();
      const note = chatRoot(element).querySelector('.canvas-ai-note')!;
      expect(note.textContent).to.equal(`↶ ${ARABIC.undoSummary('undo', 'undone')}`);
    } finally {
      container.remove();
    }
  });

  it("shows a failed turn in the host's turnError text, escaped in the error bubble with its code, and reads it out", async () => {
    await useHandlers(
      ...hopServer([
        continuing({ progress: 'سأضيف قسمًا.' }),
        () =>
          HttpResponse.json(
            {
              status: false,
              should_continue: false,
              error: { code: 'rate_limited' },
              message: 'Slow down.',
              progress: 'سأضيف قسمًا.',
            },
            { status: 429 },
          ),
      ]).handlers,
    );
    const turnError: ChatStrings['turnError'] = (error) => `تمهّل <b>${error.code}</b>\n${error.message}`;
    const element = await mountChat({ strings: { turnError }, getLayout: () => ({ layout: { regions: {} } }) });
    expect((await sendAndWait(element, 'Add a hero')).detail.status).to.equal('error');
    const bubble = errorBubbles(element).at(-1)!;
    // The host's text as text: its markup stays characters, its newline a line break, no element made of it.
    expect(bubble.textContent).to.equal('تمهّل <b>rate_limited</b>Slow down.');
    expect(bubble.querySelectorAll('b')).to.have.length(0);
    expect(bubble.querySelectorAll('br')).to.have.length(1);
    expect(bubble.closest('.canvas-ai-error')!.querySelector('.canvas-ai-error-code')!.textContent).to.equal(
      'rate_limited',
    );
    const announced = [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);
    expect(announced).to.include('تمهّل <b>rate_limited</b>\nSlow down.');
  });

  it('lays Arabic narration and a stop right to left, with the not-run step and the stop note in the host strings', async () => {
    const gate = deferred();
    const server = hopServer([
      continuing({ progress: 'سأضيف قسمًا رئيسيًا.' }),
      async (body) => {
        await gate.promise;
        return final({ message: 'تم.' })(body);
      },
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({
      strings: ARABIC,
      getLayout: () => ({ layout: { regions: { content: { components: [] } } } }),
    });
    const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
      element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
    );
    element.sendMessage('ابنِ صفحة');
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    element.stop();
    expect((await ended).detail.status).to.equal('stopped');
    gate.resolve();

    const block = progressBlocks(element)[0]!;
    // Server text of unknown direction is laid out by its own letters (dir=auto), even in a left-to-right page.
    expect(getComputedStyle(block.querySelector('.canvas-ai-progress-text')!).direction).to.equal('rtl');
    expect(block.querySelector('.canvas-ai-not-run-label')!.textContent).to.equal(ARABIC.notRun);
    expect(block.querySelector('.canvas-ai-progress-label')!.textContent).to.equal(ARABIC.stopped);
    expect(chatRoot(element).querySelector('.canvas-ai-note')!.textContent).to.equal(`■ ${ARABIC.youStopped}`);
  });
});
