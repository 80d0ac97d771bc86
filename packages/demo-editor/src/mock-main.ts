// mock.html: the same demo with no agent server. The reference server runs in the page (msw's service worker),
// playing the repository's scripted scenarios: the one call a host adds to its dev entry.
import { repositoryFixtures } from '@canvas-ai/protocol/fixtures';
import { setupCanvasAiMock } from '@canvas-ai/reference-server/mock/browser';

await setupCanvasAiMock({ fixtures: repositoryFixtures });
// The editor starts only once the mock intercepts, so the chat's first request (the agents config) reaches it.
await import('./main.js');
