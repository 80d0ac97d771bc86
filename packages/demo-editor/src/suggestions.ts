/** A suggested prompt shown as a chip: the text is sent as the user's message, to this agent. */
export interface Suggestion {
  label: string;
  text: string;
  /** The agent picked for this one message; absent → the main agent. */
  agent?: string;
  /** Shown as the chip's tooltip. */
  hint: string;
}

/**
 * The demo's suggestions. Their texts match the scripted scenarios in fixtures/scenarios, so the demo works offline
 * with the scripted provider; with a real model any text works.
 */
export const SUGGESTIONS: readonly Suggestion[] = [
  {
    label: 'Build a cookie-shop homepage',
    text: 'Build a homepage for a cookie shop',
    agent: 'page_builder',
    hint: 'The page builder places one row per step; watch the page grow.',
  },
  {
    label: 'Ask about the editor',
    text: 'How do I get the assistant to change my page?',
    hint: 'A question for the main (Q&A) agent: one step, one answer.',
  },
  {
    label: 'Remove the selected component',
    text: 'Remove the selected component',
    agent: 'page_builder',
    hint: 'Click a component first: the agent removes it (Undo brings it back).',
  },
  {
    label: 'Edit the selected card',
    text: 'Make the title of this card more tempting',
    agent: 'page_builder',
    hint: 'Click a card on the page first: the agent edits the selected component.',
  },
  {
    label: 'A hero, after a question',
    text: 'Add a hero for my tea shop, but ask me about the tone first',
    agent: 'page_builder',
    hint: 'The page builder asks you a question first; the turn waits for your answer.',
  },
  {
    label: 'Take a look at the page',
    text: 'Take a look at my page and tell me how it looks',
    agent: 'page_builder',
    hint: 'The page builder asks the editor for a screenshot of the page and looks at it.',
  },
  {
    label: 'A bakery homepage, planned first',
    text: 'Plan a homepage for my bakery, then build it',
    agent: 'page_builder',
    hint: 'The page builder proposes the rows first: approve, revise with feedback, or cancel; watch them fill in.',
  },
  {
    label: 'Ask before removing the selected component',
    text: 'Remove the selected component, after asking me',
    agent: 'careful_builder',
    hint: 'Click a component first: the careful builder proposes the removal, and you approve or reject it.',
  },
];
