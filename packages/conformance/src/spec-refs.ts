/**
 * The sections of spec/hop-protocol.md that conformance checks enforce. A test keeps every anchor pointing at a real
 * heading, and spec/conformance.md links each check to its section with these anchors.
 */
export const SPEC_SECTIONS = {
  turn: { number: '2', title: 'A turn, step by step', anchor: '2-a-turn-step-by-step' },
  endpoints: { number: '3', title: 'Endpoints', anchor: '3-endpoints' },
  agents: { number: '3.1', title: 'GET /api/agents', anchor: '31-get-apiagents' },
  token: { number: '3.2', title: 'GET /api/token', anchor: '32-get-apitoken' },
  cancelEndpoint: { number: '3.3', title: 'DELETE /api/hop/{request_id}', anchor: '33-delete-apihoprequest_id' },
  statusEndpoint: { number: '3.5', title: 'GET /api/hop/{request_id}', anchor: '35-get-apihoprequest_id' },
  contentTypes: { number: '4.1', title: 'Content types', anchor: '41-content-types' },
  csrf: { number: '4.2', title: 'Sessions and the CSRF token', anchor: '42-sessions-and-the-csrf-token' },
  attachments: { number: '4.3', title: 'Attachments', anchor: '43-attachments' },
  hostsOrigins: {
    number: '4.5',
    title: 'Hosts, origins and response headers',
    anchor: '45-hosts-origins-and-response-headers',
  },
  crossOrigin: { number: '4.6', title: 'Clients on another origin', anchor: '46-clients-on-another-origin' },
  traceContext: { number: '4.7', title: 'Trace context', anchor: '47-trace-context' },
  request: { number: '5', title: 'The hop request', anchor: '5-the-hop-request' },
  capabilities: {
    number: '5.1',
    title: 'Capabilities: the outputs a client applies',
    anchor: '51-capabilities-the-outputs-a-client-applies',
  },
  response: { number: '6', title: 'The hop response', anchor: '6-the-hop-response' },
  stream: { number: '6.1', title: 'Streamed hops', anchor: '61-streamed-hops' },
  usage: { number: '6.2', title: 'Usage', anchor: '62-usage' },
  errors: { number: '7', title: 'Errors', anchor: '7-errors' },
  tolerance: { number: '7.1', title: 'Tolerance', anchor: '71-tolerance' },
  turnState: {
    number: '8',
    title: 'Turn state, retries and concurrency',
    anchor: '8-turn-state-retries-and-concurrency',
  },
  unknownTurns: { number: '8.1', title: 'Unknown turns', anchor: '81-unknown-turns' },
  replay: { number: '8.2', title: 'Retries and replay', anchor: '82-retries-and-replay' },
  concurrent: { number: '8.3', title: 'Concurrent hops', anchor: '83-concurrent-hops' },
  outOfOrder: { number: '8.4', title: 'Out-of-order hops', anchor: '84-out-of-order-hops' },
  cancel: { number: '8.5', title: 'Cancel', anchor: '85-cancel' },
  turnStatus: { number: '8.6', title: 'Turn status', anchor: '86-turn-status' },
  whatIsLeft: { number: '8.7', title: 'What is left of a turn', anchor: '87-what-is-left-of-a-turn' },
  quotas: { number: '8.8', title: 'Quotas', anchor: '88-quotas' },
  narration: { number: '9', title: 'Narration', anchor: '9-narration' },
  layout: { number: '10', title: 'The layout model', anchor: '10-the-layout-model' },
  derivedProps: { number: '10.1', title: 'Derived props', anchor: '101-derived-props' },
  outputs: {
    number: '11',
    title: 'Outputs and how a host applies them',
    anchor: '11-outputs-and-how-a-host-applies-them',
  },
  impossibleOutputs: {
    number: '11.6',
    title: 'Impossible outputs and their conflicts',
    anchor: '116-impossible-outputs-and-their-conflicts',
  },
  tools: { number: '12', title: 'Tools', anchor: '12-tools' },
  yaml: { number: '12.1', title: 'YAML in tool inputs', anchor: '121-yaml-in-tool-inputs' },
  propTypes: { number: '12.2', title: 'Prop types', anchor: '122-prop-types' },
  toolOutputs: {
    number: '12.3',
    title: 'What the built-in tools send',
    anchor: '123-what-the-built-in-tools-send',
  },
  limits: { number: '13', title: 'Size limits', anchor: '13-size-limits' },
  scenarios: { number: '15', title: 'Scenario fixtures', anchor: '15-scenario-fixtures' },
  replaces: {
    number: '16.2',
    title: 'Outputs that know what they replace',
    anchor: '162-outputs-that-know-what-they-replace',
  },
  hostBoundary: {
    number: '16.4',
    title: 'The document at the host boundary',
    anchor: '164-the-document-at-the-host-boundary',
  },
  reportedFirst: {
    number: '16.3',
    title: 'Every output reported before the answer',
    anchor: '163-every-output-reported-before-the-answer',
  },
  stopAndRevert: { number: '17.3', title: 'Stop and revert', anchor: '173-stop-and-revert' },
  waitingTurns: { number: '20.1', title: 'Waiting turns', anchor: '201-waiting-turns' },
  questions: { number: '20.2', title: 'Questions', anchor: '202-questions' },
  screenshots: { number: '20.3', title: 'A look at the page', anchor: '203-a-look-at-the-page' },
  plans: { number: '20.4', title: 'Plans', anchor: '204-plans' },
  approvals: {
    number: '20.5',
    title: 'Approval of destructive changes',
    anchor: '205-approval-of-destructive-changes',
  },
} as const;

/** A section of spec/hop-protocol.md, by key. */
export type SpecSection = keyof typeof SPEC_SECTIONS;

/** The rule a check enforces: its section, and the MUST it holds a server to, quoted or closely paraphrased. */
export interface SpecRef {
  section: SpecSection;
  must: string;
}

/** `§8.2 Retries and replay` */
export function describeSpecRef(ref: SpecRef): string {
  const section = SPEC_SECTIONS[ref.section];
  return `§${section.number} ${section.title}`;
}

/** The link of a section relative to spec/conformance.md. */
export function specLink(section: SpecSection): string {
  return `hop-protocol.md#${SPEC_SECTIONS[section].anchor}`;
}
