import { layoutProblem } from '@canvas-ai/protocol';
import type { HostDocument } from './build-request.js';
import { TurnError } from './turn-error.js';

/**
 * Checks what the host's `getLayout()` returned before anything is sent (spec §16.4): a wrong shape or a uuid held
 * twice is the host developer's bug, so the turn ends with a `host` error naming `getLayout` and the problem
 * (and says it on the console for the developer), instead of a request the server would refuse with 400.
 */
export function checkHostDocument(value: unknown, hop: number): HostDocument {
  const problem = documentProblem(value);
  if (problem === undefined) return value as HostDocument;
  const message = `getLayout() returned a document that cannot be sent: ${problem}.`;
  // For the host's developer, with the value to look at; the person sees the message in the chat.
  console.error(`<canvas-ai-chat>: ${message}`, value);
  throw new TurnError('host', message, { hop });
}

function documentProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `it must return an object { layout, page?, selectedComponent?, extra? }, not ${describe(value)}`;
  }
  const document = value as Record<string, unknown>;
  if (!('layout' in document)) {
    // The wire's name for it is the most likely slip.
    const hint = 'current_layout' in document ? ' (it has current_layout: name it layout)' : '';
    return `the object has no layout${hint}`;
  }
  const layout = layoutProblem(document.layout);
  if (layout !== undefined) return `layout.${layout.replace(/^the layout: /, '')}`;
  if (
    document.page !== undefined &&
    (document.page === null || typeof document.page !== 'object' || Array.isArray(document.page))
  ) {
    return `page must be an object of page fields, not ${describe(document.page)}`;
  }
  const selected = document.selectedComponent;
  if (selected !== undefined && selected !== null && typeof selected !== 'string') {
    return `selectedComponent must be a component uuid or null, not ${describe(selected)}`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
