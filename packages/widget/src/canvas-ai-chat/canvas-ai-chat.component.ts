import { ContextProvider } from '@lit/context';
import {
  errorMessage,
  MAX_WAITING_TURN_REQUESTS,
  REQUIRED_OUTPUT_TYPES,
  type AgentsResponse,
} from '@canvas-ai/protocol';
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { canvasAiEvent } from '../events.js';
import type { ApplyOutputsHook, GetLayoutHook } from '../hop-loop.js';
import { newId } from '../ids.js';
import { ChatStorage, type SavedChat } from '../turn-storage.js';
import type { UndoResult } from '../undo.js';
import { agentsContext, pickContext, type ToolPick } from './agents-context.js';
import { AgentsRefresh } from './agents-refresh.js';
import { canvasAiChatStyles } from './canvas-ai-chat.styles.js';
import type { ChatMessageContent, ChatOptions, DeepChatElement } from './chat-types.js';
import { deepChatConfig, namesFor } from './deep-chat-theme.js';
import { shownMessages } from './transcript.js';
import { chatStrings, DEFAULT_STRINGS, type ChatStrings } from './strings.js';
import type { DeepChatInstance } from './deep-chat-types.js';
import { fetchAgents, TokenCache } from './server-config.js';
import type { HistoryUndo } from '../chat-session.js';
import { TurnController, type TurnSettings } from './turn-controller.js';
import { type AskedQuestion, questionCard } from './question-card.js';
import { type AskedApproval, approvalCard } from './approval-card.js';
import { planCard, type ShownPlanCard } from './plan-card.js';
import type { ApprovalDecision, PersonAnswer, PlanDecision } from '../hop-loop.js';
import type { ClearPlanHook, ShowPlanHook } from '../plan-placeholders.js';
import type { GetScreenshotHook } from '../screenshot.js';
import type { WaitingOf } from '@canvas-ai/protocol';

/** How many announcements the live region keeps (older ones were read already). */
const ANNOUNCED_KEPT = 5;

/**
 * Names what deep-chat 2.4.2 leaves unnamed: its send button (a `div role="button"` with an icon only) and its
 * scrolling list of messages, which also becomes focusable so a keyboard can scroll it.
 */
function labelDeepChat(chat: HTMLElement, strings: ChatStrings): void {
  const root = chat.shadowRoot;
  const send = root?.querySelector('#submit-icon')?.closest('.input-button');
  if (send && send.getAttribute('aria-label') !== strings.send) send.setAttribute('aria-label', strings.send);
  const messages = root?.querySelector('#messages');
  if (messages && messages.getAttribute('aria-label') !== strings.messages) {
    messages.setAttribute('role', 'region');
    messages.setAttribute('aria-label', strings.messages);
    messages.setAttribute('tabindex', '0');
  }
}

/**
 * Resolves once deep-chat 2.4.2 has no render pending. Its first render may come from its constructor's own timer
 * while the render that setting its options scheduled still waits (seen under load); that later render rebuilds the
 * view from `history`, dropping the messages added in between and the request a sent message started. deep-chat
 * has no public signal for it: `_waitingToRender_` is its flag for a scheduled render.
 */
function renderSettled(chat: HTMLElement): Promise<void> {
  const pending = () => (chat as HTMLElement & { _waitingToRender_?: boolean })._waitingToRender_ === true;
  return new Promise((resolve) => {
    const check = () => (pending() ? setTimeout(check) : resolve());
    check();
  });
}

/** Options of {@link CanvasAiChat.sendMessage}. */
export interface SendMessageOptions {
  /** The agent for this one message (an id from the agents config's `tools`); absent → the current pick or main agent. */
  agent?: string | undefined;
  /** Files to attach (hop 1 then goes as multipart). */
  files?: File[] | undefined;
}

/**
 * A chat in which an AI agent edits the host page's document one decision per request, over the Canvas AI hop
 * protocol. Renders `<deep-chat>` and runs the hop loop; the page supplies `getLayout` and `applyOutputs`.
 * Import `@canvas-ai/widget/define` (or the self-contained `canvas-ai-chat.js`) to register the tag.
 *
 * @summary An embeddable chat that lets an agent edit the page through the host's own store.
 *
 * @event canvas-ai-turn-start - A message was sent and its turn begins. `detail`: `{requestId, agent, message, attachments}`.
 * @event canvas-ai-hop - A hop's response arrived and its outputs were applied. `detail`: `{requestId, hop, response, applyResults, inverse, usage}`.
 * @event canvas-ai-turn-end - The turn ended. `detail`: `{requestId, status: 'done' | 'stopped' | 'error', hops, response, error, outputs, inverse, usage}`.
 * @event canvas-ai-error - A turn failed, or the agents config could not be loaded. `detail`: `{requestId, error}`.
 * @event canvas-ai-undo - A turn was taken back (Undo, or Stop and revert). `detail`: `{requestId, reason, status, results, notUndone}`.
 * @event canvas-ai-resume - After a reload, the chat took up the turn that was running. `detail`: `{requestId, outcome}`.
 *
 * @csspart base - The wrapper of the chat and the toolbar.
 * @csspart chat - The `<deep-chat>` element (size it here).
 * @csspart toolbar - The row under the chat holding the tools picker and the stop button.
 * @csspart announcer - The visually hidden live region that reads narration, answers and notes out to screen readers.
 * @csspart notice - Why the last `sendMessage()` was refused (a turn was running), until that turn ends.
 * @csspart stop-button - The button that stops the running turn (shown while a turn runs).
 * @csspart revert-button - The button that stops the running turn and undoes what it did (shown while a turn runs).
 * @csspart undo-button - The button that undoes the last turn that changed the page (shown after it).
 * @csspart picker - The tools picker element.
 * @csspart picker-button - The wrench button of the tools picker.
 * @csspart picker-chip - The picked agent's label, until the message is sent.
 * @csspart picker-chip-clear - The button in the chip that goes back to the main agent.
 * @csspart picker-menu - The tools picker's list of agents.
 * @csspart picker-option - One agent in that list.
 * @csspart question - The question the agent asks inside a turn (spec §20.2): a form with its choices and buttons.
 * @csspart question-text - The question's text.
 * @csspart question-choice - One choice (a radio button, or a checkbox when several may be picked).
 * @csspart question-input - The field for the person's own answer, when the question allows one.
 * @csspart question-answer - The button that sends the answer.
 * @csspart question-dismiss - The button that closes the question without answering (the agent is told).
 * @csspart plan - The plan the agent proposes before it builds (spec §20.4): its rows, a feedback field and buttons.
 * @csspart plan-rows - The numbered list of planned rows.
 * @csspart plan-row - One planned row: its title and its components.
 * @csspart plan-feedback - The field for what should change, sent with Revise.
 * @csspart plan-approve - The button that approves the plan: the agent builds it.
 * @csspart plan-revise - The button that sends the feedback: the agent proposes again.
 * @csspart plan-cancel - The button that cancels the turn (as Stop does).
 *
 * @cssproperty [--canvas-ai-height=32rem] - The element's height.
 * @cssproperty [--canvas-ai-font-family=inherit] - Font of the whole chat.
 * @cssproperty [--canvas-ai-font-size=0.95rem] - Base font size.
 * @cssproperty [--canvas-ai-text-color=#1f2328] - Text colour.
 * @cssproperty [--canvas-ai-muted-color=#57606a] - Secondary text: agent names, status rows, descriptions.
 * @cssproperty [--canvas-ai-background=#ffffff] - Background of the chat and the controls.
 * @cssproperty [--canvas-ai-input-background=#ffffff] - Background of the text input.
 * @cssproperty [--canvas-ai-border-color=#d0d7de] - Borders.
 * @cssproperty [--canvas-ai-radius=10px] - Corner radius.
 * @cssproperty [--canvas-ai-accent=#2563eb] - Accent: user bubbles, the spinner, the stop button, the picked agent.
 * @cssproperty [--canvas-ai-accent-contrast=#ffffff] - Text on the accent colour.
 * @cssproperty [--canvas-ai-user-bubble-background=var(--canvas-ai-accent)] - The user's messages.
 * @cssproperty [--canvas-ai-user-bubble-color=#ffffff] - Text of the user's messages.
 * @cssproperty [--canvas-ai-reply-background=#f1f3f5] - The agent's replies.
 * @cssproperty [--canvas-ai-reply-color=var(--canvas-ai-text-color)] - Text of the agent's replies.
 * @cssproperty [--canvas-ai-progress-background=#f8f9fb] - The narration block.
 * @cssproperty [--canvas-ai-progress-color=#57606a] - Text of the narration block.
 * @cssproperty [--canvas-ai-success-color=#1a7f37] - The done icon of the narration block.
 * @cssproperty [--canvas-ai-error-color=#b42318] - Error text and icon.
 * @cssproperty [--canvas-ai-error-background=#fef3f2] - Error messages.
 * @cssproperty [--canvas-ai-notice-color=#9a6700] - The edge of a notice: an output the editor could not apply.
 * @cssproperty [--canvas-ai-notice-background=#fff8c5] - Notices in the narration block.
 * @cssproperty [--canvas-ai-notice-text-color=#3b2300] - Text of the notices.
 */
export class CanvasAiChat extends LitElement {
  static override styles = canvasAiChatStyles;

  /** The hop URL the turns are POSTed to; cancels go to `<endpoint>/<request_id>`. */
  @property() endpoint = '/api/hop';

  /** A CSRF token sent as `X-CSRF-Token`. Takes precedence over `token-endpoint`. */
  @property({ attribute: 'csrf-token' }) csrfToken: string | undefined;

  /** Where to GET the CSRF token (`/api/token`); fetched once, again after the server rejects it. */
  @property({ attribute: 'token-endpoint' }) tokenEndpoint: string | undefined;

  /** The agents config for the tools picker and the reply captions. Takes precedence over `agents-endpoint`. */
  @property({ type: Object }) agents: AgentsResponse | undefined;

  /** Where to GET the agents config (`/api/agents`). */
  @property({ attribute: 'agents-endpoint' }) agentsEndpoint: string | undefined;

  /**
   * The `credentials` of every request (hops, cancels, the token and the agents): `same-origin` by default;
   * `include` for an agent server on another origin, so the session cookie goes along (spec §4.6).
   */
  @property() credentials: RequestCredentials = 'same-origin';

  /**
   * Sends a W3C `traceparent` with every hop, one trace id per turn (spec §4.7), so a server that traces shows each
   * turn as one trace. Off by default; a server on another origin must grant the header in its preflight.
   */
  @property({ type: Boolean }) trace = false;

  /** Sent with every turn of this chat; default a random id per element. */
  @property({ attribute: 'conversation-id' }) conversationId: string | undefined;

  /** The client's safety net: a turn the server keeps going past this many hops ends with an error. */
  @property({ type: Number, attribute: 'max-hops' }) maxHops = MAX_WAITING_TURN_REQUESTS;

  /**
   * The waits (ms) before each retry of a hop after a network failure, a 409 `hop_in_progress` or a 503; their number
   * bounds the retries. Default 0.5 s, 1 s, 2 s, 4 s, 8 s.
   */
  @property({ attribute: false }) retryDelays: readonly number[] | undefined;

  /** Required. Returns the host's document at that moment; called at the start of every hop. */
  @property({ attribute: false }) getLayout: GetLayoutHook | undefined;

  /** Applies a hop's outputs to the host's store (awaited); its return value is sent as the next `apply_results`. */
  @property({ attribute: false }) applyOutputs: ApplyOutputsHook | undefined;

  /**
   * Optional. Draws a plan's rows that are not built yet as placeholders on the host's canvas (spec §20.4), replacing
   * what it drew before: called when the agent proposes a plan, when the person approves it, and each time a built
   * row takes the place of the next placeholder. Placeholders stay out of what `getLayout` returns.
   */
  @property({ attribute: false }) showPlan: ShowPlanHook | undefined;

  /** Optional. Takes the placeholders of `showPlan` away: a revision was asked for, or the turn ended or stopped. */
  @property({ attribute: false }) clearPlan: ClearPlanHook | undefined;

  /**
   * Optional. Takes a screenshot of the page (or of the region around `componentUuid`) when the agent asks for a look
   * (spec §20.3): resolves to an image `Blob` (PNG, JPEG, GIF or WebP, at most 5 MiB), or `null` when it cannot. Set,
   * the element declares the wait `screenshot` and the agent may ask; the image goes with the next hop.
   */
  @property({ attribute: false }) getScreenshot: GetScreenshotHook | undefined;

  /**
   * The output types `applyOutputs` applies, space-separated as an attribute. Beyond the v1 three, `remove_components`
   * and `move_components` are declared to the server, which then may send them (spec §5.1); Undo needs
   * `remove_components` to take back a placement. Default: the v1 three. A host using the protocol's reducer applies all.
   */
  @property({
    attribute: 'output-types',
    converter: { fromAttribute: (value) => (value ?? '').split(/\s+/).filter(Boolean) },
  })
  outputTypes: readonly string[] = [...REQUIRED_OUTPUT_TYPES];

  /** Hides Undo and Stop and revert (a host that keeps its own undo history of agent turns). */
  @property({ type: Boolean, attribute: 'no-undo' }) noUndo = false;

  /**
   * For a host whose own history holds each turn as one entry (a snapshot store): Undo and Stop and revert call it
   * first. It restores the turn's entry and returns true (the chat applies nothing), or returns false when it cannot
   * (the person changed the page since): the chat then applies the turn's inverse outputs through `applyOutputs`.
   */
  @property({ attribute: false }) undoInHistory: ((turn: HistoryUndo) => boolean | Promise<boolean>) | undefined;

  /**
   * Asks for JSON answers only, not the streamed hop (spec §6): the narration then shows once per hop, and the
   * outputs with the hop's response. By default the chat asks for the stream, and a server that does not stream
   * answers JSON anyway.
   */
  @property({ type: Boolean, attribute: 'no-stream' }) noStream = false;

  /** Keeps nothing in `sessionStorage`: a reload then starts an empty chat and abandons a running turn. */
  @property({ type: Boolean, attribute: 'no-persist' }) noPersist = false;

  /**
   * The `sessionStorage` key of this chat's conversation and running turn (spec §18). Default
   * `canvas-ai-chat:<id>`, or `canvas-ai-chat` for an element without an id: give two chats of one page their own.
   */
  @property({ attribute: 'storage-key' }) storageKey: string | undefined;

  /**
   * deep-chat options passed through (text input, image attachments, styles…). Set it before the element is
   * connected: changing it later re-renders deep-chat, which clears the displayed messages.
   */
  @property({ attribute: false }) chatOptions: ChatOptions | undefined;

  /**
   * The texts the chat shows, any of them replaced (the rest stay English): buttons, labels, status rows, notices,
   * errors. Set it before the element is connected: the text input's placeholder is deep-chat's and set once.
   */
  @property({ attribute: false }) strings: Partial<ChatStrings> | undefined;

  @state() private loadedAgents: AgentsResponse | undefined;
  /** The question the agent asks now (spec §20), until the person answers or dismisses it, or the turn stops. */
  @state() private asked: AskedQuestion | undefined;
  /** The plan the agent proposes now (spec §20.4), until the person decides, cancels, or the turn stops. */
  @state() private planShown: ShownPlanCard | undefined;
  /** Changes the agent proposes, shown until the person decides or the turn stops (spec §20.5). */
  @state() private proposed: AskedApproval | undefined;
  /** Why the last `sendMessage()` was refused, shown until the turn that caused it ends. */
  @state() private refusal: string | undefined;
  /** Why the picked agent was dropped: the server no longer offers it (shown until the next turn starts). */
  @state() private pickNotice: string | undefined;
  @query('.chat') private chatSlot!: HTMLElement;
  @query('.announcer') private announcer!: HTMLElement;

  private deepChat: DeepChatInstance | undefined;
  private labeller: MutationObserver | undefined;
  private appliedOptions: ChatOptions | undefined;
  private readonly turns = new TurnController(this, {
    chat: () => this.deepChat,
    settings: () => this.turnSettings(),
    mainAgentId: () => this.effectiveAgents?.main_agent.id,
    beforeTurn: () => this.beforeTurn(),
    takePick: () => this.takePick(),
    onFailed: (error) => {
      if (error.code === 'csrf_invalid') this.tokenCache?.invalidate();
    },
    storage: () => this.storage,
    strings: () => this.text,
    announce: (text) => this.announce(text),
    undoInHistory: () => this.undoInHistory,
  });
  private defaultConversationId = newId();
  private storage: ChatStorage | undefined;
  private tokenCache: TokenCache | undefined;
  private pickedAgent: string | undefined;
  private agentsLoading: Promise<void> | undefined;
  private readonly agentsRefresh = new AgentsRefresh(this, {
    // Agents the host set take precedence: nothing to ask then.
    url: () => (this.agents ? undefined : this.agentsEndpoint),
    credentials: () => this.credentials,
    current: () => this.loadedAgents,
    changed: (agents) => {
      this.loadedAgents = agents;
    },
  });
  private readonly agentsProvider = new ContextProvider(this, { context: agentsContext });
  private readonly pickProvider = new ContextProvider(this, { context: pickContext, initialValue: this.toolPick() });

  /** The strings in use: the host's over the English defaults. */
  private get text(): ChatStrings {
    return chatStrings(this.strings);
  }

  /** The `<deep-chat>` element, once it has rendered (before that, `sendMessage()` is refused). */
  get chat(): DeepChatElement | undefined {
    return this.deepChat;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Put back in the page after it was taken out (moved, say): a kept turn its removal left alone is taken up now.
    // On the first connection there is no deep-chat yet, and firstUpdated takes the kept turn up.
    if (!this.deepChat || this.turns.busy) return;
    const saved = this.storage?.load();
    if (saved?.running) void this.turns.restore(saved);
  }

  /** Whether a turn is running. */
  get running(): boolean {
    return this.turns.running;
  }

  /** Stops the running turn: no request follows, the in-flight one is aborted, the server is told. */
  stop(): void {
    this.turns.stop();
  }

  /** Whether Undo is offered: the last turn changed the page, and `applyOutputs` can apply every inverse. */
  get canUndo(): boolean {
    return this.applyOutputs !== undefined && this.turns.canUndo(this.outputTypes);
  }

  /**
   * Undoes the last turn that changed the page (spec §17) through `applyOutputs`; what the person changed since stays,
   * and the chat says what could not be undone. Resolves undefined when there is nothing to undo.
   */
  undo(): Promise<UndoResult | undefined> {
    return this.canUndo ? this.turns.undo() : Promise.resolve(undefined);
  }

  /**
   * Tells the chat that the host's own history (its Undo, Ctrl+Z) took turn `requestId` back: Undo is no longer
   * offered for it, the chat notes it and the next turn's transcript tells the model. True when it was the chat's
   * last turn that changed the page and not taken back already.
   */
  historyUndid(requestId: string): boolean {
    return this.turns.historyUndid(requestId);
  }

  /**
   * Tells the chat that the host's own history (its Redo) applied turn `requestId` again: Undo is offered for it
   * again, and the chat notes it. True when it was the chat's last turn that changed the page and had been taken back.
   */
  historyRedid(requestId: string): boolean {
    return this.turns.historyRedid(requestId);
  }

  /** Stop and revert (spec §17.3): stops the running turn and undoes what it did. Undefined when none runs. */
  revert(): Promise<UndoResult | undefined> {
    return this.turns.revert();
  }

  /**
   * Sends a message as if the user typed it. `options.agent` picks an agent for this one message, as the wrench
   * would (an agent the config does not offer is ignored: the main agent answers); `options.files` attaches files.
   * Passing the files array directly is the older form and still works. Returns false, sends nothing and changes
   * no pick while a turn runs (or an undo is applied); the chat then shows why until that turn ends.
   */
  sendMessage(text: string, options: SendMessageOptions | File[] = {}): boolean {
    const { files, agent } = Array.isArray(options) ? { files: options, agent: undefined } : options;
    // One turn at a time (spec §8.3). Refused in sight of the person and the developer, and before the pick is
    // touched: a refused message must not leave its agent picked for the next one.
    if (this.turns.busy || !this.deepChat) {
      this.refusal = this.text.busy;
      this.announce(this.text.busy);
      console.warn(
        `<canvas-ai-chat>: sendMessage() refused: ${this.deepChat ? DEFAULT_STRINGS.busy : 'the chat has not rendered yet.'}`,
      );
      return false;
    }
    if (agent !== undefined) this.setPick(agent);
    this.deepChat.submitUserMessage(files ? { text, files } : { text });
    return true;
  }

  override render() {
    const text = this.text;
    const hasTools = (this.effectiveAgents?.tools.length ?? 0) > 0;
    const running = this.turns.running;
    return html`<div part="base" class="base">
      <div part="announcer" class="announcer" role="log" aria-live="polite" aria-label=${text.announcer}></div>
      <div class="chat"></div>
      ${this.asked ? questionCard(this.asked, text) : nothing}
      ${this.planShown ? planCard(this.planShown, text) : nothing}
      ${this.proposed ? approvalCard(this.proposed, text) : nothing}
      <div
        part="toolbar"
        class="toolbar"
        ?hidden=${!hasTools && !running && !this.refusal && !this.pickNotice && !(this.canUndo && !this.noUndo)}
      >
        ${
          hasTools
            ? html`<canvas-ai-tool-picker
              part="picker"
              .strings=${text}
              exportparts="button: picker-button, chip: picker-chip, chip-clear: picker-chip-clear, menu: picker-menu, option: picker-option"
            ></canvas-ai-tool-picker>`
            : nothing
        }
        <span class="spacer"></span>
        ${this.refusal ? html`<span part="notice" class="notice">${this.refusal}</span>` : nothing}
        ${this.pickNotice && !this.refusal ? html`<span part="notice" class="notice">${this.pickNotice}</span>` : nothing}
        ${
          this.canUndo && !this.noUndo
            ? html`<button part="undo-button" class="undo" type="button" aria-label=${text.undoLabel} @click=${() => void this.undo()}>${text.undo}</button>`
            : nothing
        }
        ${
          running && !this.noUndo
            ? html`<button part="revert-button" class="revert" type="button" aria-label=${text.revertLabel} @click=${() => void this.revert()}>${text.revert}</button>`
            : nothing
        }
        ${running ? html`<button part="stop-button" class="stop" type="button" aria-label=${text.stopLabel} @click=${() => this.stop()}>${text.stop}</button>` : nothing}
      </div>
    </div>`;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.turns.busy) this.refusal = undefined;
    if (changed.has('agentsEndpoint') && this.agentsEndpoint) this.agentsLoading = this.loadAgents(this.agentsEndpoint);
    if (changed.has('tokenEndpoint') || changed.has('credentials')) this.tokenCache = undefined;
    if (changed.has('agents') || changed.has('loadedAgents' as keyof CanvasAiChat)) {
      const previous = changed.has('agents')
        ? (changed.get('agents') as AgentsResponse | undefined)
        : (changed.get('loadedAgents' as keyof CanvasAiChat) as AgentsResponse | undefined);
      this.agentsChanged(this.agents ?? previous ?? this.loadedAgents);
    }
  }

  // deep-chat is created once, with its whole configuration, and never re-rendered by Lit: any property set on it, and
  // any re-render of a template holding it, wipes the displayed messages (deep-chat 2.4.2; see the README, "How the
  // element drives deep-chat"). So it waits for the agents config its reply captions need (a failed load does not hold
  // it back).
  protected override async firstUpdated(): Promise<void> {
    if (!this.agents) await this.agentsLoading;
    // What this tab kept before a reload: the conversation shown again, the running turn resumed (spec §18).
    this.storage = this.noPersist
      ? undefined
      : new ChatStorage(this.storageKey ?? `canvas-ai-chat${this.id ? `:${this.id}` : ''}`);
    const saved = this.storage?.load();
    if (saved?.conversationId) this.defaultConversationId = saved.conversationId;
    const chat = document.createElement('deep-chat') as DeepChatInstance;
    chat.setAttribute('part', 'chat');
    // deep-chat adds a Google Fonts <link> to the host page's head on first render unless its own inline style
    // already names a font: an embedded widget must not call a third party from every page it is on.
    chat.style.fontFamily = 'var(--canvas-ai-font-family, inherit)';
    this.appliedOptions = this.chatOptions;
    Object.assign(
      chat,
      deepChatConfig(this.turns.handle, this.effectiveAgents, this.text, this.restoredOptions(saved)),
    );
    // deep-chat takes no message before its view has rendered, and drops what was added before a render it still
    // had pending: the chat is usable (and the kept turn taken up) once no render is pending.
    const rendered = new Promise<void>((resolve) => {
      chat.onComponentRender = () => {
        // deep-chat rebuilds its view when some options change (names, chatOptions): labelled again each time.
        if (chat.shadowRoot && !this.labeller) {
          this.labeller = new MutationObserver(() => labelDeepChat(chat, this.text));
          this.labeller.observe(chat.shadowRoot, { childList: true, subtree: true });
        }
        labelDeepChat(chat, this.text);
        resolve();
      };
    });
    this.chatSlot.append(chat);
    await rendered;
    await renderSettled(chat);
    this.deepChat = chat;
    // Options the host changed meanwhile are applied by the update this asks for.
    this.requestUpdate();
    if (saved) void this.turns.restore(saved);
  }

  /** The host's deep-chat options, with the kept messages as deep-chat's history when there are any. */
  private restoredOptions(saved: SavedChat | undefined): ChatOptions | undefined {
    if (!saved || saved.messages.length === 0) return this.chatOptions;
    // Rebuilt with the chat's own escaping: never the kept records as they are (security review 2, G6).
    return { ...this.chatOptions, history: shownMessages(saved.messages, this.text) as ChatMessageContent[] };
  }

  /**
   * Reads `text` out to screen readers: one paragraph added to the chat's live region (a polite `role="log"`, which
   * announces additions), the last few kept. deep-chat's messages have no live region of their own.
   */
  private announce(text: string): void {
    const region = this.announcer;
    if (!region || text.length === 0) return;
    const line = document.createElement('p');
    line.textContent = text;
    region.append(line);
    while (region.childElementCount > ANNOUNCED_KEPT) region.firstElementChild?.remove();
  }

  protected override updated(): void {
    if (this.deepChat && this.chatOptions !== this.appliedOptions) {
      this.appliedOptions = this.chatOptions;
      Object.assign(
        this.deepChat,
        deepChatConfig(this.turns.handle, this.effectiveAgents, this.text, this.chatOptions),
      );
    }
  }

  private get effectiveAgents(): AgentsResponse | undefined {
    return this.agents ?? this.loadedAgents;
  }

  private agentsChanged(previous: AgentsResponse | undefined): void {
    const agents = this.effectiveAgents;
    this.agentsProvider.setValue(agents);
    const picked = this.pickedAgent;
    if (picked !== undefined && !agents?.tools.some((agent) => agent.id === picked)) {
      // The server's settings changed under the pick: dropped, never sent, and the person told why.
      this.setPick(undefined);
      const label = previous?.tools.find((agent) => agent.id === picked)?.label ?? picked;
      this.pickNotice = this.text.toolGone(label, agents?.main_agent.label ?? '');
      this.announce(this.pickNotice);
    }
    // Reply captions come from `names`; setting it re-renders deep-chat, harmless only while it shows nothing.
    const chat = this.deepChat;
    if (chat && !this.chatOptions?.names && chat.getMessages().length === 0) chat.names = namesFor(agents);
  }

  private async loadAgents(url: string): Promise<void> {
    try {
      const agents = await fetchAgents(url, this.credentials);
      if (url === this.agentsEndpoint) this.loadedAgents = agents;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(errorMessage(error), { cause: error });
      this.dispatchEvent(canvasAiEvent('canvas-ai-error', { requestId: undefined, error: failure }));
    }
  }

  private turnSettings(): TurnSettings {
    return {
      endpoint: this.endpoint,
      credentials: this.credentials,
      trace: this.trace,
      conversationId: this.conversationId ?? this.defaultConversationId,
      maxHops: this.maxHops,
      retryDelays: this.retryDelays,
      csrfToken: this.csrfToken ?? this.tokenSource(),
      getLayout: () => {
        if (!this.getLayout)
          throw new Error('<canvas-ai-chat> needs its getLayout property set to a function that returns the document.');
        return this.getLayout();
      },
      applyOutputs: (outputs, response, info) => this.applyOutputs?.(outputs, response, info),
      outputTypes: this.outputTypes,
      stream: !this.noStream,
      askPerson: (waiting, info) => this.ask(waiting, info.signal),
      decidePlan: (waiting, info) => this.proposePlan(waiting, info.signal),
      showPlan: (plan) => this.showPlan?.(plan),
      clearPlan: () => this.clearPlan?.(),
      approve: (waiting, info) => this.propose(waiting, info.signal),
      ...(this.getScreenshot ? { getScreenshot: this.screenshotTaker(this.getScreenshot) } : {}),
    };
  }

  /**
   * Shows the changes the agent proposes (spec §20.5), each ticked, and resolves with the person's decision. The live
   * region reads it out and the first change takes the focus; a stop of the turn takes the card away.
   */
  private propose(waiting: WaitingOf<'approval'>, stopped: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      const proposed: AskedApproval = {
        waiting,
        decide: (decision) => {
          if (this.proposed === proposed) this.proposed = undefined;
          resolve(decision);
        },
      };
      stopped.addEventListener(
        'abort',
        () => {
          if (this.proposed === proposed) this.proposed = undefined;
        },
        { once: true },
      );
      this.proposed = proposed;
      this.announce(this.text.approvalAsked(waiting.approval.changes.length));
      void this.updateComplete.then(() => {
        if (this.proposed === proposed)
          this.renderRoot.querySelector<HTMLInputElement>('[part="approval"] input')?.focus();
      });
    });
  }

  /** The host's hook, with the live region told that the agent looks at the page (spec §20.3). */
  private screenshotTaker(hook: GetScreenshotHook): GetScreenshotHook {
    return (request, info) => {
      this.announce(this.text.screenshotTaken);
      return hook(request, info);
    };
  }

  /**
   * Shows the agent's plan (spec §20.4) and resolves with the person's decision; Cancel stops the turn. The live
   * region reads the rows out and Approve takes the focus; a stop of the turn takes the card away.
   */
  private proposePlan(waiting: WaitingOf<'plan'>, stopped: AbortSignal): Promise<PlanDecision> {
    return new Promise((resolve) => {
      const shown: ShownPlanCard = {
        waiting,
        answer: (answer) => {
          if (this.planShown === shown) this.planShown = undefined;
          resolve(answer);
        },
        cancel: () => this.stop(),
      };
      stopped.addEventListener(
        'abort',
        () => {
          if (this.planShown === shown) this.planShown = undefined;
        },
        { once: true },
      );
      this.planShown = shown;
      this.announce(this.text.planShown(waiting.plan.rows.map((row) => row.title)));
      void this.updateComplete.then(() => {
        if (this.planShown === shown) this.renderRoot.querySelector<HTMLButtonElement>('.plan-approve')?.focus();
      });
    });
  }

  /**
   * Shows the agent's question (spec §20.2) and resolves with the person's answer or dismissal. The live region reads
   * it out and the first choice takes the focus; a stop of the turn takes the card away.
   */
  private ask(waiting: WaitingOf<'question'>, stopped: AbortSignal): Promise<PersonAnswer> {
    return new Promise((resolve) => {
      const asked: AskedQuestion = {
        waiting,
        answer: (answer) => {
          if (this.asked === asked) this.asked = undefined;
          resolve(answer);
        },
      };
      stopped.addEventListener(
        'abort',
        () => {
          if (this.asked === asked) this.asked = undefined;
        },
        { once: true },
      );
      this.asked = asked;
      this.announce(this.text.questionAsked(waiting.question.text));
      void this.updateComplete.then(() => {
        if (this.asked === asked) this.renderRoot.querySelector<HTMLInputElement>('.question input')?.focus();
      });
    });
  }

  /**
   * Before a turn takes its pick: the agents asked again (spec §3.1), so a tool the server no longer offers is dropped
   * with a notice and the next message goes to the agents of now.
   */
  private async beforeTurn(): Promise<void> {
    this.pickNotice = undefined;
    await this.agentsRefresh.beforeTurn();
    await this.updateComplete;
  }

  /** The pick applies to one message: taking it resets it. */
  private takePick(): string | undefined {
    const agent = this.pickedAgent;
    if (agent !== undefined) this.setPick(undefined);
    return agent;
  }

  private tokenSource(): TokenCache['get'] | undefined {
    if (!this.tokenEndpoint) return undefined;
    this.tokenCache ??= new TokenCache(this.tokenEndpoint, this.credentials);
    return this.tokenCache.get;
  }

  private toolPick(): ToolPick {
    return { agent: this.pickedAgent, choose: (agent) => this.setPick(agent) };
  }

  private setPick(agent: string | undefined): void {
    if (agent !== undefined) this.pickNotice = undefined;
    const offered = agent === undefined || this.effectiveAgents?.tools.some((candidate) => candidate.id === agent);
    this.pickedAgent = offered ? agent : undefined;
    this.pickProvider.setValue(this.toolPick());
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'canvas-ai-chat': CanvasAiChat;
  }
}
