import { consume } from '@lit/context';
import type { AgentSummary, AgentsResponse } from '@canvas-ai/protocol';
import { html, LitElement, nothing, svg } from 'lit';
import { property, state } from 'lit/decorators.js';
import { agentsContext, pickContext, type ToolPick } from '../agents-context.js';
import { DEFAULT_STRINGS, type ChatStrings } from '../strings.js';
import { toolPickerStyles } from './tool-picker.styles.js';

const wrenchIcon = svg`<svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2"
  stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M15 4a5 5 0 0 0-4.6 6.9L4 17.3 6.7 20l6.4-6.4A5 5 0 0 0 20 9l-3 3-3-1-1-3z"/></svg>`;

/**
 * The tools picker of `<canvas-ai-chat>`: a wrench that lists the agents a person may pick for their next
 * message. Renders nothing unless the agents config offers tools. Reads the config and the current pick from
 * `@lit/context`, so it only works inside `<canvas-ai-chat>`.
 *
 * @summary Picks the agent for the next message.
 *
 * @csspart button - The wrench button.
 * @csspart chip - The picked agent's label, shown until the message is sent.
 * @csspart chip-clear - The button in the chip that goes back to the main agent.
 * @csspart menu - The list of agents.
 * @csspart option - One agent in the list.
 */
export class CanvasAiToolPicker extends LitElement {
  static override styles = toolPickerStyles;

  // Both come from <canvas-ai-chat> through @lit/context, never from the page.
  @consume({ context: agentsContext, subscribe: true })
  @state()
  private agents: AgentsResponse | undefined;

  @consume({ context: pickContext, subscribe: true })
  @state()
  private pick: ToolPick | undefined;

  @state() private open = false;

  /** The texts it shows; `<canvas-ai-chat>` hands down its own `strings`. */
  @property({ attribute: false }) strings: ChatStrings = DEFAULT_STRINGS;

  override render() {
    const agents = this.agents;
    if (!agents || agents.tools.length === 0) return nothing;
    const picked = agents.tools.find((agent) => agent.id === this.pick?.agent);
    return html`
      <button
        part="button"
        class="wrench ${picked ? 'picked' : ''}"
        aria-haspopup="menu"
        aria-expanded=${this.open ? 'true' : 'false'}
        aria-label=${this.strings.pickAgent}
        title=${this.strings.pickAgent}
        @click=${() => this.toggle()}
        @keydown=${this.onButtonKey}
      >
        ${wrenchIcon}
      </button>
      ${
        picked
          ? html`<span part="chip" class="chip"
            >${picked.label}<button part="chip-clear" aria-label=${this.strings.backTo(agents.main_agent.label)} @click=${() => this.choose(undefined)}>
              ×
            </button></span
          >`
          : nothing
      }
      ${
        this.open
          ? html`<div part="menu" class="menu" role="menu" aria-label=${this.strings.agentList} @keydown=${this.onMenuKey}>
            ${this.option(agents.main_agent, undefined)} ${agents.tools.map((agent) => this.option(agent, agent.id))}
          </div>`
          : nothing
      }
    `;
  }

  private option(agent: AgentSummary, value: string | undefined) {
    return html`<button
      part="option"
      class="option"
      role="menuitemradio"
      tabindex="-1"
      data-agent=${agent.id}
      aria-checked=${this.pick?.agent === value ? 'true' : 'false'}
      @click=${() => this.choose(value)}
    >
      <span class="label">${agent.label}</span><span class="description">${agent.description}</span>
    </button>`;
  }

  private choose(agent: string | undefined): void {
    this.pick?.choose(agent);
    this.close();
  }

  /** Opens the list with the picked agent focused (the WAI-ARIA menu button pattern), or closes it. */
  private async toggle(focus: 'picked' | 'last' = 'picked'): Promise<void> {
    if (this.open) return this.close();
    this.open = true;
    await this.updateComplete;
    const options = this.options();
    const picked = options.find((option) => option.getAttribute('aria-checked') === 'true');
    (focus === 'last' ? options.at(-1) : (picked ?? options[0]))?.focus();
  }

  /** Closes the list and gives focus back to the wrench, so a keyboard user is where they started. */
  private close(): void {
    this.open = false;
    this.renderRoot.querySelector<HTMLButtonElement>('[part="button"]')?.focus();
  }

  private options(): HTMLButtonElement[] {
    return [...this.renderRoot.querySelectorAll<HTMLButtonElement>('[part="option"]')];
  }

  private readonly onButtonKey = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    if (!this.open) void this.toggle(event.key === 'ArrowUp' ? 'last' : 'picked');
  };

  /** Arrow keys, Home and End move through the agents; Escape and Tab close the list. */
  private readonly onMenuKey = (event: KeyboardEvent): void => {
    const options = this.options();
    const at = options.indexOf(this.shadowRoot?.activeElement as HTMLButtonElement);
    const move: Record<string, number | undefined> = {
      ArrowDown: (at + 1) % options.length,
      ArrowUp: at <= 0 ? options.length - 1 : at - 1,
      Home: 0,
      End: options.length - 1,
    };
    const next = move[event.key];
    if (next !== undefined) {
      event.preventDefault();
      options[next]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
    } else if (event.key === 'Tab') this.open = false;
  };
}

declare global {
  interface HTMLElementTagNameMap {
    'canvas-ai-tool-picker': CanvasAiToolPicker;
  }
}
