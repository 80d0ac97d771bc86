// Accessibility inside the element: the live region reads narration, answers and notes out; the picker by keyboard.
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { mountChat, pickerRoot, sendAndWait, unmountAll } from './support/chat.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { useHandlers } from './support/worker.js';

const emptyPage = () => ({ layout: { regions: { content: { components: [] } } } });
const announced = (element: CanvasAiChat) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);

describe('<canvas-ai-chat> accessibility', () => {
  afterEach(unmountAll);

  it('reads each hop’s new narration, the end of the turn and the answer out through a polite live region', async () => {
    await useHandlers(
      ...hopServer([
        continuing({ progress: 'I will add a hero.' }),
        continuing({ progress: 'I will add a hero.\n\nNow the footer.' }),
        final({ progress: 'I will add a hero.\n\nNow the footer.', message: 'Your page is ready.' }),
      ]).handlers,
    );
    const element = await mountChat({ getLayout: emptyPage });
    const region = element.shadowRoot!.querySelector('[part="announcer"]')!;
    expect(region.getAttribute('role')).to.equal('log');
    expect(region.getAttribute('aria-live')).to.equal('polite');
    expect(region.getAttribute('aria-label')).to.equal('Chat updates');

    expect((await sendAndWait(element, 'Build a page')).detail.status).to.equal('done');
    // Each paragraph once, as it arrives: a hop that repeats the narration adds nothing to read.
    expect(announced(element)).to.deep.equal(['I will add a hero.', 'Now the footer.', 'Done', 'Your page is ready.']);
  });

  it('opens the picker from the keyboard, moves with the arrows, picks with Enter and closes with Escape', async () => {
    const element = await mountChat({
      getLayout: emptyPage,
      agents: {
        main_agent: { id: 'qa', label: 'Q&A', description: 'Answers.' },
        tools: [
          { id: 'page_builder', label: 'Page builder', description: 'Builds pages.' },
          { id: 'copy_editor', label: 'Copy editor', description: 'Edits text.' },
        ],
      },
    });
    const picker = element.shadowRoot!.querySelector('canvas-ai-tool-picker')!;
    await picker.updateComplete;
    const root = pickerRoot(element)!;
    const wrench = root.querySelector<HTMLButtonElement>('[part="button"]')!;
    const key = (target: Element, name: string) =>
      target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, composed: true }));
    const focusedAgent = () => (root.activeElement as HTMLElement | null)?.dataset.agent;

    wrench.focus();
    key(wrench, 'ArrowDown');
    await waitUntil(() => focusedAgent() === 'qa', 'ArrowDown on the wrench did not open the list on the main agent');
    expect(wrench.getAttribute('aria-expanded')).to.equal('true');
    key(root.activeElement!, 'ArrowDown');
    expect(focusedAgent()).to.equal('page_builder');
    key(root.activeElement!, 'End');
    expect(focusedAgent()).to.equal('copy_editor');
    key(root.activeElement!, 'ArrowDown');
    expect(focusedAgent(), 'the arrows wrap').to.equal('qa');
    key(root.activeElement!, 'Escape');
    await picker.updateComplete;
    expect(root.querySelector('[part="menu"]')).to.equal(null);
    expect(root.activeElement, 'Escape gives focus back to the wrench').to.equal(wrench);

    key(wrench, 'ArrowUp');
    await waitUntil(() => focusedAgent() === 'copy_editor', 'ArrowUp did not open the list on the last agent');
    (root.activeElement as HTMLButtonElement).click();
    await picker.updateComplete;
    expect(root.querySelector('[part="chip"]')!.textContent).to.contain('Copy editor');
    expect(root.activeElement).to.equal(wrench);
  });
});
