// An agent server on another origin that does not list this page's (spec §4.6): the reference server's CLI on a port
// of its own (web-test-runner.config.mjs). The browser reports only "Failed to fetch", so the chat, the loop's error
// and the server's log name the setting that allows the page.
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { DEFAULT_STRINGS } from '../src/canvas-ai-chat/strings.js';
import { startTurn } from '../src/hop-loop.js';
import { collect, errorBubbles, mountChat, sendAndWait, unmountAll } from './support/chat.js';

/** The agent server's URL, and what it logged so far. */
async function agentServer(): Promise<{ url: string; log: string[] }> {
  return (await fetch('/__agent-server__')).json();
}

const EMPTY = { layout: { regions: { content: { components: [] } } } };

async function mountAgainst(url: string, strings?: CanvasAiChat['strings']): Promise<CanvasAiChat> {
  return mountChat({
    endpoint: `${url}/api/hop`,
    tokenEndpoint: `${url}/api/token`,
    agentsEndpoint: `${url}/api/agents`,
    credentials: 'include',
    retryDelays: [],
    strings,
    getLayout: () => EMPTY,
  });
}

describe("<canvas-ai-chat> and an agent server that does not allow this page's origin", () => {
  afterEach(() => unmountAll());

  it('shows an error naming the server’s allowed-origins setting and this page’s origin; the server logs the origin', async () => {
    const { url } = await agentServer();
    const server = new URL(url).origin;
    expect(server).not.to.equal(location.origin, 'two origins');
    const errors = collect(document, 'canvas-ai-error');
    const chat = await mountAgainst(url);
    // The agents config is read first: the host hears why it failed, with the setting named.
    await waitUntil(() => errors.length > 0, 'the agents config failed');
    expect(errors[0]!.detail.error.message).to.contain('--allowed-origins').and.contain(location.origin);

    const end = await sendAndWait(chat, 'Build a cookie-shop homepage');

    expect(end.detail.status).to.equal('error');
    const error = end.detail.error!;
    expect(error.kind).to.equal('token', 'the CSRF token could not be read');
    expect(error.serverOrigin).to.equal(server);
    expect(error.message).to.contain('--allowed-origins').and.contain('CANVAS_AI_ALLOWED_ORIGINS');
    const shown = errorBubbles(chat).map((bubble) => bubble.textContent);
    expect(shown).to.deep.equal([DEFAULT_STRINGS.originNotAllowed(server, location.origin)]);
    expect(shown[0]).to.contain('--allowed-origins').and.contain('CANVAS_AI_ALLOWED_ORIGINS');
    expect(shown[0]).to.contain('security.allowedOrigins').and.contain(location.origin).and.contain(server);

    await waitUntil(async () => (await agentServer()).log.some((line) => line.includes('"origin_not_allowed"')));
    const lines = (await agentServer()).log
      .filter((line) => line.includes('"origin_not_allowed"'))
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines.map((line) => line.origin)).to.deep.equal([location.origin], 'one line for this origin');
    expect(lines[0]!.fix).to.contain('--allowed-origins');
  });

  it('shows the host’s own text for it (strings.originNotAllowed), as every other text', async () => {
    const { url } = await agentServer();
    const chat = await mountAgainst(url, {
      originNotAllowed: (server, page) => `لا يسمح الخادم ${server} بالصفحة ${page} (--allowed-origins)`,
    });

    await sendAndWait(chat, 'Hello');

    expect(errorBubbles(chat).map((bubble) => bubble.textContent)).to.deep.equal([
      `لا يسمح الخادم ${new URL(url).origin} بالصفحة ${location.origin} (--allowed-origins)`,
    ]);
  });

  it('the loop alone: a hop to it ends with a network error naming the setting', async () => {
    const { url } = await agentServer();

    const result = await startTurn({
      endpoint: `${url}/api/hop`,
      credentials: 'include',
      messages: [{ role: 'user', text: 'Hello' }],
      getLayout: () => EMPTY,
      retryDelays: [],
    }).result;

    expect(result.status).to.equal('error');
    if (result.status !== 'error') return;
    expect(result.error.kind).to.equal('network');
    expect(result.error.serverOrigin).to.equal(new URL(url).origin);
    expect(result.error.message)
      .to.contain('Failed to fetch')
      .and.contain('--allowed-origins')
      .and.contain(location.origin);
  });
});
