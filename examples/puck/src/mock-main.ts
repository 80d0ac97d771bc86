// mock.html: the same page with no agent server. The reference server runs in the page (msw's service worker),
// playing this example's own catalog, agents and scenarios: the one call a Puck team adds to its dev entry.
// The page's styles load before the worker starts: a stylesheet the dynamic import below preloads through msw's
// worker fails to load in Chromium (net::ERR_FAILED), and the page stops.
import '@puckeditor/core/no-external.css';
import './example.css';
import { fixturesFromData } from '@canvas-ai/protocol/fixtures';
import { setupCanvasAiMock } from '@canvas-ai/reference-server/mock/browser';
import { parse } from 'yaml';
import agents from '../fixtures/agents.yaml?raw';
import catalog from '../fixtures/catalog.yaml?raw';

const scenarios = import.meta.glob<string>('../fixtures/scenarios/*.yaml', {
  query: '?raw',
  import: 'default',
  eager: true,
});

await setupCanvasAiMock({
  fixtures: fixturesFromData({
    catalog: parse(catalog),
    agents: parse(agents),
    scenarios: Object.values(scenarios).map((text) => parse(text)),
  }),
});
// Puck and the chat start only once the mock intercepts, so the chat's first request reaches it.
await import('./main.js');
