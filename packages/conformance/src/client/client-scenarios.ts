import type { ProposedChange, ToolOutput } from '@canvas-ai/protocol';
import type { WaitRequest } from '@canvas-ai/protocol/server';
import { type CheckNeeds, partNeeds } from '../claims.js';

/**
 * What the kit's server does instead of answering a hop, once (the client's repeat of the hop then gets the
 * scripted answer): `lose` runs the hop and drops the connection before the answer; `cut-stream` sends a streamed
 * answer without its last line; `busy` 409 `hop_in_progress` and `unavailable` 503 `store_unavailable`, both with
 * `Retry-After: 1`; `gone` 410; `provider-error` 502; `unknown-code` a 400 with a code no revision has;
 * `csrf-refused` 403 `csrf_invalid`; `origin-refused` 403 `origin_not_allowed`, on every try; `markup-refusal` a 400
 * whose `message` is {@link MARKUP_ERROR}; `hold` keeps the hop unanswered until the client aborts it (the kit asks
 * the client to stop meanwhile); `answer-late` holds it the same way, but answers it with its scripted outputs when
 * the client's cancel arrives, as a hop that finished just as the person stopped (a client that aborted it reads
 * nothing). Two are for a client that asks for a stream (a JSON answer otherwise): `stop-after-outputs` sends the
 * outputs line and holds the rest, asking the client to stop meanwhile; `outputs-differ` sends a response line whose
 * outputs are the outputs line's with a page value changed under the same `call_id`.
 */
export type KitFault =
  | 'lose'
  | 'cut-stream'
  | 'busy'
  | 'unavailable'
  | 'gone'
  | 'provider-error'
  | 'unknown-code'
  | 'csrf-refused'
  | 'origin-refused'
  | 'markup-refusal'
  | 'hold'
  | 'answer-late'
  | 'stop-after-outputs'
  | 'outputs-differ';

/**
 * What the kit answers one hop: outputs to go on with, or the final answer; maybe after a fault. Outputs may come
 * with `wait`: the turn then waits for the person (spec §20.1), as the reference server's waiting hop answers, when
 * hop 1 declared that kind of wait; else the kit offers no wait (a server MUST NOT) and answers the outputs alone.
 */
export type HopStep = { progress?: string; fault?: KitFault } & (
  | { kind: 'outputs'; outputs: ToolOutput[]; wait?: KitWait }
  | { kind: 'answer'; text: string }
);

/**
 * What a waiting hop waits for: a tool's wait (a question, a screenshot, a plan), or outputs the agents config marks
 * for approval (spec §20.5): `held` are not sent with the waiting hop; those the person approves come with the
 * response to the hop that brings the answer, before that hop's own outputs. `changes` are how the person is shown
 * them, one per held output, as the reference server words them.
 */
export type KitWait = WaitRequest | { kind: 'approval'; held: ToolOutput[]; changes: ProposedChange[] };

/**
 * How the person (or, for a screenshot, the host) answers one wait of a turn, as the adapter is told it
 * (`{answers}`, spec/conformance.md §7): a question's picked choices (indexes from 0) and own text, or its dismissal;
 * a plan's decision and feedback; the path of the image the host supplies for a screenshot, or `null` when it has
 * none this time (the client answers `unavailable`); the proposed changes the person leaves ticked (indexes from 0
 * into `waiting.approval.changes`; none rejects them all).
 */
export type ScriptedAnswer =
  | { kind: 'question'; choices?: number[]; text?: string; dismissed?: boolean }
  | { kind: 'plan'; decision: 'approve' | 'revise'; feedback?: string }
  | { kind: 'screenshot'; image: string | null }
  | { kind: 'approval'; approved: number[] };

/**
 * One scripted turn the client under test is asked to run. Its components are of the catalog the kit ships
 * (`--print-fixtures`), the one a host under test is set up with.
 */
export interface ClientScenario {
  id: string;
  /** What it plays, for people. */
  title: string;
  /** The person's message the client is given. */
  message: string;
  /** The kit's answer to each hop, in order; a hop past the list gets a final answer. */
  hops: HopStep[];
  /** Answer a client that asks for a stream with NDJSON (else JSON, as a server of revision 1.3 does). */
  stream?: boolean;
  /** What a client must claim for the kit to play it (default: revision 1.0); the rest is skipped with a line. */
  needs?: CheckNeeds;
  /**
   * A file the person attaches to the message, relative to the kit's fixtures (`--print-fixtures`): the adapter gets
   * its path as `{attachment}` (empty in the other scenarios).
   */
  attachment?: string;
  /**
   * How the person answers the turn's waits, in the order the turn asks (spec §20): the adapter gets them as
   * `{answers}`, a screenshot's `image` relative to the kit's fixtures. A wait past the list is never answered: the
   * person looks at it until the kit asks them to stop.
   */
  answers?: ScriptedAnswer[];
  /** The kit asks the client to stop (SIGINT) once the turn waits, instead of answering. */
  stopWhileWaiting?: boolean;
}

/** The revisions that added what some scenarios play (spec §14.1). */
const CO_EDITING: CheckNeeds = { since: '1.1', what: 'co-editing (spec §16, revision 1.1)' };
/** `origin_not_allowed` came with revision 1.3, beside the older `csrf_invalid` of the same status. */
export const TWO_403_CODES: CheckNeeds = { since: '1.3', what: 'two codes of one status (spec §7, revision 1.3)' };
const RETRY_AFTER_ON_409: CheckNeeds = {
  since: '1.4',
  what: 'Retry-After on 409 hop_in_progress (spec §8.3, revision 1.4)',
};

export const HERO = 'kit-hero-0001';
export const TEXT = 'kit-text-0002';
const BUTTON = 'kit-button-0003';

const placeHero: ToolOutput = {
  type: 'place_components',
  call_id: 'kit_call_1',
  operations: [
    {
      target: 'content',
      placement: 'inside',
      components: [
        { uuid: HERO, component: 'sdc.demo.hero', props: { heading: 'Fresh bread daily', subheading: 'Since 1921' } },
      ],
    },
  ],
};

/** Outputs whose order matters: the text is placed below the hero, then edited in the same response. */
const buildRest: ToolOutput[] = [
  {
    type: 'place_components',
    call_id: 'kit_call_2',
    operations: [
      {
        target: 'content',
        placement: 'below',
        reference_uuid: HERO,
        components: [{ uuid: TEXT, component: 'sdc.demo.text', props: { body: 'Our story' } }],
      },
      {
        target: 'content',
        placement: 'below',
        reference_uuid: TEXT,
        components: [{ uuid: BUTTON, component: 'sdc.demo.button', props: { label: 'Order', url: '/order' } }],
      },
    ],
  },
  { type: 'edit_components', call_id: 'kit_call_3', component_updates: { [TEXT]: { body: 'Our story, since 1921' } } },
  { type: 'set_page_value', call_id: 'kit_call_4', field: 'title', value: 'Crumb & Co.' },
];

/** Three outputs the host must refuse (spec §11.6, §16.2) between two it applies. */
const refusedAndApplied: ToolOutput[] = [
  {
    type: 'edit_components',
    call_id: 'kit_call_5',
    component_updates: { [HERO]: { heading: 'Not on this page' } },
    replaces: { [HERO]: { heading: 'What the page never said' } },
  },
  { type: 'edit_components', call_id: 'kit_call_6', component_updates: { 'kit-no-such-node': { heading: 'Nowhere' } } },
  {
    type: 'place_components',
    call_id: 'kit_call_7',
    operations: [
      {
        target: 'content',
        placement: 'below',
        reference_uuid: 'kit-no-such-node',
        components: [{ uuid: 'kit-orphan-0004', component: 'sdc.demo.text', props: { body: 'Orphan' } }],
      },
    ],
  },
  {
    type: 'edit_components',
    call_id: 'kit_call_8',
    component_updates: { [HERO]: { subheading: 'Baked at dawn' } },
    replaces: { [HERO]: { subheading: 'Since 1921' } },
  },
  { type: 'set_page_value', call_id: 'kit_call_9', field: 'title', value: 'Kept', replaces: 'What it never was' },
];

/**
 * Texts a client MUST show as they are (spec §9, §7): narration, an answer and an error message holding HTML and
 * markdown. Shown as HTML, the tags would vanish (and the image's handler run); as markdown, the asterisks.
 */
export const MARKUP_NARRATION = 'Adding a <b>hero</b> & <img src=x onerror="document.title=1"> for **you**.';
export const MARKUP_ANSWER = 'Built: <i>one</i> hero, <script>document.title=2</script> **bold** & done.';
export const MARKUP_ERROR = 'The kit refuses <em>this</em> hop <a href="https://example.com">here</a> **now**.';

/** What the kit answers a hop the person stopped: a client MUST NOT apply it (spec §17.3). */
export const LATE_TEXT = 'kit-late-0009';
const placeLateText: ToolOutput = {
  type: 'place_components',
  call_id: 'kit_call_late',
  operations: [
    {
      target: 'content',
      placement: 'below',
      reference_uuid: HERO,
      components: [{ uuid: LATE_TEXT, component: 'sdc.demo.text', props: { body: 'Too late' } }],
    },
  ],
};

const SECTION = 'kit-section-0004';
const NOTE = 'kit-note-0005';

/** A section holding a note: a slot the moves and removals below can reach into (spec §11.4, §11.5). */
const placeSection: ToolOutput = {
  type: 'place_components',
  call_id: 'kit_call_12',
  operations: [
    {
      target: 'content',
      placement: 'below',
      reference_uuid: BUTTON,
      components: [
        {
          uuid: SECTION,
          component: 'sdc.demo.section',
          props: { heading: 'Visit us' },
          slots: { content: [{ uuid: NOTE, component: 'sdc.demo.text', props: { body: 'Open daily' } }] },
        },
      ],
    },
  ],
};

/**
 * Moves and removals of the built page (hero, story, button, section with a note): the host applies the first and
 * the last, and MUST reject the five between (spec §11.6): a move into the moved component's own slot, a move next
 * to a component being moved, a removal of a uuid not in the layout, a removal whose `replaces` no longer matches
 * (the story was edited after the model saw it), a move whose `replaces` places the component elsewhere.
 */
const removeAndMove: ToolOutput[] = [
  {
    type: 'move_components',
    call_id: 'kit_call_13',
    operations: [{ uuids: [BUTTON], target: `${SECTION}/content`, placement: 'inside' }],
    replaces: { [BUTTON]: 'content' },
  },
  {
    type: 'move_components',
    call_id: 'kit_call_14',
    operations: [{ uuids: [SECTION], target: `${SECTION}/content`, placement: 'inside' }],
    replaces: { [SECTION]: 'content' },
  },
  {
    type: 'move_components',
    call_id: 'kit_call_15',
    operations: [{ uuids: [HERO], target: 'content', placement: 'below', reference_uuid: HERO }],
    replaces: { [HERO]: 'content' },
  },
  { type: 'remove_components', call_id: 'kit_call_16', uuids: ['kit-no-such-node'] },
  {
    type: 'remove_components',
    call_id: 'kit_call_17',
    uuids: [TEXT],
    replaces: { [TEXT]: { uuid: TEXT, component: 'sdc.demo.text', props: { body: 'Our story' } } },
  },
  {
    type: 'move_components',
    call_id: 'kit_call_18',
    operations: [{ uuids: [TEXT], target: 'content', placement: 'above', reference_uuid: HERO }],
    replaces: { [TEXT]: `${SECTION}/content` },
  },
  {
    type: 'remove_components',
    call_id: 'kit_call_19',
    uuids: [HERO],
    replaces: {
      [HERO]: {
        uuid: HERO,
        component: 'sdc.demo.hero',
        props: { heading: 'Fresh bread daily', subheading: 'Since 1921' },
      },
    },
  },
];

const HEADING = 'kit-heading-0006';

/** A heading, placed as a server MUST place it: `derived` names the anchor its catalog marks (spec §10.1). */
const placeHeading: ToolOutput = {
  type: 'place_components',
  call_id: 'kit_call_20',
  operations: [
    {
      target: 'content',
      placement: 'above',
      reference_uuid: HERO,
      components: [
        { uuid: HEADING, component: 'sdc.demo.heading', props: { text: 'Our best sellers' }, derived: ['anchor'] },
      ],
    },
  ],
};

/**
 * The heading removed with a `replaces` whose anchor is not the one the host holds (the host recomputed it, or never
 * computed one): the anchor is derived, so a host MUST skip it when it compares (spec §10.1) and apply the removal.
 */
const removeHeading: ToolOutput = {
  type: 'remove_components',
  call_id: 'kit_call_21',
  uuids: [HEADING],
  replaces: {
    [HEADING]: {
      uuid: HEADING,
      component: 'sdc.demo.heading',
      props: { text: 'Our best sellers', anchor: 'kit-anchor-the-host-replaced' },
      derived: ['anchor'],
    },
  },
};

const outputs = (list: ToolOutput[], progress: string, fault?: KitFault): HopStep => ({
  kind: 'outputs',
  outputs: list,
  progress,
  ...(fault ? { fault } : {}),
});
const answer: HopStep = { kind: 'answer', text: 'The page is built: a hero, a story and an order button.' };

/** Outputs, then the turn waits for `wait` (the waiting hop adds nothing to the narration, spec §20.1). */
const waiting = (list: ToolOutput[], progress: string, wait: KitWait): HopStep => ({
  kind: 'outputs',
  outputs: list,
  progress,
  wait,
});

const REMOVE_MOVE = partNeeds('remove-move');
/** Stop and revert came with undo, in revision 1.2. */
export const STOP_AND_REVERT: CheckNeeds = { since: '1.2', what: 'stop and revert (spec §17.3, revision 1.2)' };
/** Derived props came with revision 1.6; only a removal's `replaces` holds whole nodes to compare. */
export const DERIVED_IN_REMOVAL: CheckNeeds = {
  since: '1.6',
  part: 'remove-move',
  what: "derived props in a removal's comparison (spec §10.1, revision 1.6, with the part remove-move)",
};
const APPROVALS = partNeeds('approvals');
const QUESTIONS = partNeeds('questions');
const SCREENSHOTS = partNeeds('screenshots');
const PLANS = partNeeds('plans');

/** A question with several picks and a text of one's own allowed (spec §20.2). */
const askTone: WaitRequest = {
  kind: 'question',
  question: {
    text: 'Which tone should the story have?',
    choices: ['Warm', 'Elegant', 'Bold'],
    multiple: true,
    free_text: true,
  },
};

/**
 * Two edits that each touch two components, which an agent's rule (`over_components: 1`) makes proposals, shown as
 * the reference server shows them: by catalog name and own text, never by uuid (spec §20.5).
 */
const proposedEdits: KitWait = {
  kind: 'approval',
  held: [
    {
      type: 'edit_components',
      call_id: 'kit_call_10',
      component_updates: { [HERO]: { heading: 'Bread, baked at dawn' }, [BUTTON]: { label: 'Order now' } },
    },
    {
      type: 'edit_components',
      call_id: 'kit_call_11',
      component_updates: { [TEXT]: { body: 'A new story' }, [HERO]: { subheading: 'Since 1899' } },
    },
  ],
  changes: [
    {
      call_id: 'kit_call_10',
      type: 'edit_components',
      components: [
        { component: 'sdc.demo.hero', name: 'Hero', text: 'Fresh bread daily', inside: 0 },
        { component: 'sdc.demo.button', name: 'Button', text: 'Order', inside: 0 },
      ],
    },
    {
      call_id: 'kit_call_11',
      type: 'edit_components',
      components: [
        { component: 'sdc.demo.text', name: 'Text', inside: 0 },
        { component: 'sdc.demo.hero', name: 'Hero', text: 'Fresh bread daily', inside: 0 },
      ],
    },
  ],
};

/** A plan of the rows the build places (spec §20.4), and the one proposed again after the person's feedback. */
const firstPlan: WaitRequest = {
  kind: 'plan',
  plan: { rows: [{ title: 'Hero with the bakery name', components: ['sdc.demo.hero'] }] },
};
const revisedPlan: WaitRequest = {
  kind: 'plan',
  plan: {
    rows: [
      { title: 'Hero with the bakery name', components: ['sdc.demo.hero'] },
      { title: 'Our story', components: ['sdc.demo.text'] },
      { title: 'Order button', components: ['sdc.demo.button'] },
    ],
  },
};

/** The scripted turns of the client kit, in the order it runs them. */
export const CLIENT_SCENARIOS: readonly ClientScenario[] = [
  {
    id: 'build',
    title: 'a three-hop build: each output type, outputs whose order matters, a final answer, no usage',
    message: 'Build a bakery homepage',
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'Adding a hero. A story and a button.'), answer],
  },
  {
    id: 'attachment',
    title: 'the person attaches a photo to the message: sent with hop 1 only, every later hop as JSON',
    message: 'Build a page around this photo',
    attachment: 'attachments/cookie.png',
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'Adding a hero. A story and a button.'), answer],
  },
  {
    id: 'refusals',
    title: 'outputs the host must refuse: a stale `replaces`, unknown targets, beside two it applies',
    message: 'Touch up the hero',
    needs: CO_EDITING,
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(refusedAndApplied, 'Editing.'), answer],
  },
  {
    id: 'streamed',
    title: 'streamed answers (NDJSON) to a client that asks for them',
    message: 'Build a bakery homepage, streamed',
    stream: true,
    needs: partNeeds('streaming'),
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.'), answer],
  },
  {
    id: 'lost-response',
    title: 'hop 2 runs but its response is lost (the connection drops)',
    message: 'Build, and lose a response',
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.', 'lose'), answer],
  },
  {
    id: 'cut-stream',
    title: 'a streamed hop 2 ends without its last line',
    message: 'Build, and cut a stream',
    stream: true,
    needs: partNeeds('streaming'),
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.', 'cut-stream'), answer],
  },
  {
    id: 'stream-stopped-after-outputs',
    title: 'a streamed hop 2 sends its outputs line and nothing more; the person stops while the model would run',
    message: 'Build, and stop while it writes',
    stream: true,
    needs: partNeeds('streaming'),
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      outputs(buildRest, 'A story and a button.', 'stop-after-outputs'),
      answer,
    ],
  },
  {
    id: 'stream-outputs-differ',
    title: 'a streamed hop 2 whose response line carries other outputs than its outputs line',
    message: 'Build, and get two stories',
    stream: true,
    needs: partNeeds('streaming'),
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      outputs(buildRest, 'A story and a button.', 'outputs-differ'),
      answer,
    ],
  },
  {
    id: 'busy',
    title: 'hop 2 is answered 409 hop_in_progress with Retry-After: 1 once',
    message: 'Build, and meet a busy turn',
    needs: RETRY_AFTER_ON_409,
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.', 'busy'), answer],
  },
  {
    id: 'unavailable',
    title: 'hop 2 is answered 503 store_unavailable with Retry-After: 1 once',
    message: 'Build, and meet a store that is down',
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.', 'unavailable'), answer],
  },
  {
    id: 'gone',
    title: 'hop 2 is answered 410 turn_not_found',
    message: 'Build, and lose the turn',
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'gone' }],
  },
  {
    id: 'provider-error',
    title: 'hop 2 is answered 502 provider_error',
    message: 'Build, and meet a failing model',
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'provider-error' }],
  },
  {
    id: 'unknown-code',
    title: 'hop 2 is refused (400) with an error code no revision has',
    message: 'Build, and meet an unknown refusal',
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'unknown-code' }],
  },
  {
    id: 'markup',
    title: 'narration and an answer holding HTML and markdown, to be shown as text',
    message: 'Build, and narrate with markup',
    hops: [outputs([placeHero], MARKUP_NARRATION), { kind: 'answer', text: MARKUP_ANSWER, progress: MARKUP_NARRATION }],
  },
  {
    id: 'markup-error',
    title: 'hop 2 refused (400) with a message holding HTML and markdown, to be shown as text',
    message: 'Build, and meet a refusal with markup',
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'markup-refusal' }],
  },
  {
    id: 'csrf-refused',
    title: 'hop 2 is refused 403 csrf_invalid once (an expired token)',
    message: 'Build, and meet an expired token',
    hops: [outputs([placeHero], 'Adding a hero.'), outputs(buildRest, 'A story and a button.', 'csrf-refused'), answer],
  },
  {
    id: 'origin-refused',
    title: 'hop 2 is refused 403 origin_not_allowed on every try (the status of an expired token, another code)',
    message: 'Build, and meet a refused origin',
    needs: TWO_403_CODES,
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'origin-refused' }],
  },
  {
    id: 'remove-move',
    title: 'the built page, then two moves and removals the host applies and five it must refuse',
    message: 'Build, then tidy the page up',
    needs: REMOVE_MOVE,
    hops: [
      outputs([placeHero, ...buildRest, placeSection], 'Adding a hero, a story, a button and a section.'),
      outputs(removeAndMove, 'Adding a hero, a story, a button and a section. Tidied up.'),
      { kind: 'answer', text: 'The button is in the section now, and the hero is gone.' },
    ],
  },
  {
    id: 'derived-props',
    title: 'a hero and a heading whose anchor is derived; the heading removed with a `replaces` holding another anchor',
    message: 'Add a heading, then take it away again',
    needs: DERIVED_IN_REMOVAL,
    hops: [
      outputs([placeHero, placeHeading], 'Adding a hero and a heading.'),
      outputs([removeHeading], 'Adding a hero and a heading. Removed the heading.'),
      { kind: 'answer', text: 'The heading is gone; the hero stays.' },
    ],
  },
  {
    id: 'question-answered',
    title: 'hop 1 places a hero and asks a question; the person picks two choices and writes a line',
    message: 'Build a page, and ask me about the tone',
    needs: QUESTIONS,
    answers: [{ kind: 'question', choices: [0, 2], text: 'a little playful' }],
    hops: [
      waiting([placeHero], 'Adding a hero.', askTone),
      outputs(buildRest, 'Adding a hero. A story and a button.'),
      answer,
    ],
  },
  {
    id: 'question-dismissed',
    title: 'hop 1 asks a question before anything is placed; the person dismisses it',
    message: 'Ask me first, then build',
    needs: QUESTIONS,
    answers: [{ kind: 'question', dismissed: true }],
    hops: [waiting([], '', askTone), outputs([placeHero], 'Adding a hero.'), answer],
  },
  {
    id: 'plan-revised-then-approved',
    title: 'a plan, revised with feedback, proposed again and approved, then built',
    message: 'Plan a bakery homepage, then build it',
    needs: PLANS,
    answers: [
      { kind: 'plan', decision: 'revise', feedback: 'Add our story and an order button.' },
      { kind: 'plan', decision: 'approve' },
    ],
    hops: [
      waiting([], '', firstPlan),
      waiting([], '', revisedPlan),
      outputs([placeHero], 'Adding a hero.'),
      outputs(buildRest, 'Adding a hero. A story and a button.'),
      answer,
    ],
  },
  {
    id: 'screenshot-sent',
    title: 'hop 1 places a hero, hop 2 asks for a look at it; the host sends its screenshot, later hops are JSON',
    message: 'Build a hero, and look at it',
    needs: SCREENSHOTS,
    answers: [{ kind: 'screenshot', image: 'attachments/cookie.png' }],
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      waiting([], 'Adding a hero.', { kind: 'screenshot', screenshot: { component_uuid: HERO } }),
      outputs(buildRest, 'Adding a hero. A story and a button.'),
      answer,
    ],
  },
  {
    id: 'screenshot-unavailable',
    title: 'hop 1 asks for a look at the whole page; the host has no screenshot this time',
    message: 'Look at the page, then build',
    needs: SCREENSHOTS,
    answers: [{ kind: 'screenshot', image: null }],
    hops: [
      waiting([], '', { kind: 'screenshot', screenshot: { component_uuid: null } }),
      outputs([placeHero], 'Adding a hero.'),
      answer,
    ],
  },
  {
    id: 'approval-partly-approved',
    title: 'the built page, then two proposed edits; the person unticks the second and approves the first',
    message: 'Build, then freshen up the wording',
    needs: APPROVALS,
    answers: [{ kind: 'approval', approved: [0] }],
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      outputs(buildRest, 'Adding a hero. A story and a button.'),
      waiting([], 'Adding a hero. A story and a button.', proposedEdits),
      outputs([], 'Adding a hero. A story and a button. Edited.'),
      answer,
    ],
  },
  {
    id: 'approval-rejected',
    title: 'the built page, then two proposed edits; the person rejects both',
    message: 'Build, then ask before rewording',
    needs: APPROVALS,
    answers: [{ kind: 'approval', approved: [] }],
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      outputs(buildRest, 'Adding a hero. A story and a button.'),
      waiting([], 'Adding a hero. A story and a button.', proposedEdits),
      outputs([], 'Adding a hero. A story and a button. Left as it was.'),
      answer,
    ],
  },
  {
    id: 'stop-while-waiting',
    title: 'hop 1 asks a question the person does not answer; they stop the turn instead',
    message: 'Ask me, and I will stop',
    needs: QUESTIONS,
    answers: [],
    stopWhileWaiting: true,
    hops: [waiting([placeHero], 'Adding a hero.', askTone), answer],
  },
  {
    id: 'plan-cancelled',
    title: "hop 1 proposes a plan; the person cancels it (a plan's Cancel stops the turn, spec §20.4)",
    message: 'Plan a page, and I will cancel',
    needs: PLANS,
    answers: [],
    stopWhileWaiting: true,
    hops: [waiting([], '', firstPlan), answer],
  },
  {
    id: 'stop',
    title: 'the person stops while hop 2 runs',
    message: 'Build, then stop',
    hops: [outputs([placeHero], 'Adding a hero.'), { ...answer, fault: 'hold' }],
  },
  {
    id: 'stop-late-answer',
    title: 'the person stops while hop 2 runs; hop 2 finishes as the cancel arrives and is answered anyway',
    message: 'Build, then stop before the late card',
    needs: STOP_AND_REVERT,
    hops: [
      outputs([placeHero], 'Adding a hero.'),
      { ...outputs([placeLateText], 'Adding a hero. A late text.'), fault: 'answer-late' },
    ],
  },
];
