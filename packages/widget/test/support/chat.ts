// Mounting <canvas-ai-chat> and reading what deep-chat shows (tests may look into shadow roots; hosts need not).
import { waitUntil } from '@open-wc/testing';
import '../../src/define.js';
import type { CanvasAiChat } from '../../src/canvas-ai-chat/canvas-ai-chat.component.js';

const mounted: HTMLElement[] = [];

/** Creates the element with these properties, in a sized container, and waits until deep-chat has rendered. */
export async function mountChat(
  properties: Partial<CanvasAiChat>,
  parent: ParentNode = document.body,
): Promise<CanvasAiChat> {
  const element = document.createElement('canvas-ai-chat');
  Object.assign(element, properties);
  element.style.setProperty('--canvas-ai-height', '420px');
  parent.append(element);
  if (parent === document.body) mounted.push(element);
  await element.updateComplete;
  await waitUntil(() => element.chat?.shadowRoot?.querySelector('#messages'), 'deep-chat did not render');
  return element;
}

/**
 * Removes every element mounted by {@link mountChat} (and `others`), and what they kept in `sessionStorage` for a
 * reload. A removed element stops its turn, whose end is kept: that is waited for, so it cannot land in the next test.
 */
export async function unmountAll(others: Iterable<Element> = []): Promise<void> {
  const elements = [...mounted.splice(0), ...others];
  const ends = elements
    .filter((element): element is CanvasAiChat => element instanceof HTMLElement && 'running' in element)
    .filter((element) => element.running)
    .map(
      (element) => new Promise((resolve) => element.addEventListener('canvas-ai-turn-end', resolve, { once: true })),
    );
  for (const element of elements) element.remove();
  await Promise.all(ends);
  sessionStorage.clear();
}

/** deep-chat's shadow root inside the element. */
export function chatRoot(element: CanvasAiChat): ShadowRoot {
  return element.chat!.shadowRoot!;
}

/** Every message bubble deep-chat shows, in order. */
export function bubbles(element: CanvasAiChat): HTMLElement[] {
  return [...chatRoot(element).querySelectorAll<HTMLElement>('.message-bubble')];
}

/** The narration blocks shown. */
export function progressBlocks(element: CanvasAiChat): HTMLElement[] {
  return [...chatRoot(element).querySelectorAll<HTMLElement>('.canvas-ai-progress')];
}

/** The error messages shown: the text of each error bubble (its code apart). */
export function errorBubbles(element: CanvasAiChat): HTMLElement[] {
  return [...chatRoot(element).querySelectorAll<HTMLElement>('.canvas-ai-error-text')];
}

/** deep-chat's loading bubble (shown from send until the first response). */
export function loadingBubbles(element: CanvasAiChat): HTMLElement[] {
  return [...chatRoot(element).querySelectorAll<HTMLElement>('.deep-chat-loading-message-bubble')];
}

/** The element's stop button, if shown. */
export function stopButton(element: CanvasAiChat): HTMLButtonElement | null {
  return element.shadowRoot!.querySelector<HTMLButtonElement>('[part~="stop-button"]');
}

/** The tools picker's shadow root, if the picker is shown. */
export function pickerRoot(element: CanvasAiChat): ShadowRoot | null {
  return element.shadowRoot!.querySelector('canvas-ai-tool-picker')?.shadowRoot ?? null;
}

/** Picks an agent with the wrench, as a person would. */
export async function pickAgent(element: CanvasAiChat, agentId: string): Promise<void> {
  const picker = element.shadowRoot!.querySelector('canvas-ai-tool-picker')!;
  await picker.updateComplete;
  picker.shadowRoot!.querySelector<HTMLButtonElement>('[part="button"]')!.click();
  await picker.updateComplete;
  picker.shadowRoot!.querySelector<HTMLButtonElement>(`[part="option"][data-agent="${agentId}"]`)!.click();
  await picker.updateComplete;
}

/** Sends a message and resolves with the turn-end event. */
export function sendAndWait(
  element: CanvasAiChat,
  text: string,
  files?: File[],
): Promise<HTMLElementEventMap['canvas-ai-turn-end']> {
  const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
    element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
  );
  element.sendMessage(text, files);
  return ended;
}

/** Collects every event of one type the element dispatches. */
export function collect<K extends keyof HTMLElementEventMap>(
  target: EventTarget,
  type: K,
): Array<HTMLElementEventMap[K]> {
  const events: Array<HTMLElementEventMap[K]> = [];
  target.addEventListener(type, (event) => events.push(event as HTMLElementEventMap[K]));
  return events;
}
