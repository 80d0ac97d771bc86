// The settings screen (#23): the main agent from a dropdown of the site's canvas agents, the tools as checkboxes, Save.
// It talks to the reference server's optional admin surface (spec §19) with the admin token `npm start` prints.
import { ADMIN_SETTINGS_PATH, AdminSettingsResponse, type AgentSettings, HopErrorBody } from '@canvas-ai/protocol';
import { html, nothing, render } from 'lit';

/** Where this tab keeps the admin token (given once in the address, `#admin-token=…`). */
const TOKEN_KEY = 'canvas-ai-demo:admin-token';

/** Takes an admin token from the address's fragment (never sent to a server), keeps it for this tab, and hides it. */
export function takeAdminTokenFromAddress(): void {
  const match = /(?:^#|&)admin-token=([^&]+)/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]!));
  history.replaceState(null, '', location.pathname + location.search);
}

/** What the screen shows: the server's answer, the form's state, and what the last save said. */
interface ScreenState {
  loaded?: AdminSettingsResponse;
  draft?: AgentSettings;
  /** Problems by the key they are at (`main_agent`, `tools`), shown next to that field; `''` for the whole form. */
  errors: Record<string, string[]>;
  saved?: string;
  busy: boolean;
}

/** The settings screen inside `root`; `open()` loads the settings each time it is shown. */
export class SettingsScreen {
  private state: ScreenState = { errors: {}, busy: false };

  constructor(private readonly root: HTMLElement) {}

  async open(): Promise<void> {
    this.state = { errors: {}, busy: true };
    this.paint();
    const answer = await this.request('GET');
    this.state.busy = false;
    if (answer) this.state = { ...this.state, loaded: answer, draft: structuredClone(answer.settings) };
    this.paint();
  }

  private token(): string {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  }

  /** One request of the admin surface; its problems land in the state, one line each next to its field. */
  private async request(method: 'GET' | 'PUT', body?: AgentSettings): Promise<AdminSettingsResponse | undefined> {
    let response: Response;
    try {
      response = await fetch(ADMIN_SETTINGS_PATH, {
        method,
        headers: {
          Authorization: `Bearer ${this.token()}`,
          ...(body ? { 'Content-Type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch {
      this.state.errors = { '': ['The server could not be reached.'] };
      return undefined;
    }
    const json: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      const parsed = AdminSettingsResponse.safeParse(json);
      if (parsed.success) return parsed.data;
      this.state.errors = { '': ['The server answered in a form this screen does not know.'] };
      return undefined;
    }
    const error = HopErrorBody.safeParse(json);
    const errors: Record<string, string[]> = {};
    if (response.status === 401)
      errors.token = ['The admin token is missing or wrong: paste the one npm start printed.'];
    else if (response.status === 404)
      errors[''] = ['This server has no admin settings (start it with CANVAS_AI_ADMIN_TOKEN).'];
    else if (error.success && error.data.error.issues?.length) {
      for (const issue of error.data.error.issues) {
        const field = issue.path.split('.')[0]!;
        errors[field] = [...(errors[field] ?? []), issue.message];
      }
    } else errors[''] = [error.success ? error.data.message : `The server answered HTTP ${response.status}.`];
    this.state.errors = errors;
    return undefined;
  }

  private async save(): Promise<void> {
    const draft = this.state.draft;
    if (!draft) return;
    this.state = { ...this.state, busy: true, errors: {}, saved: undefined };
    this.paint();
    const answer = await this.request('PUT', draft);
    this.state.busy = false;
    if (answer) {
      const label = (id: string) => answer.canvas_agents.find((agent) => agent.id === id)?.label ?? id;
      const tools = answer.settings.tools.map(label).join(', ') || 'none';
      this.state = {
        ...this.state,
        loaded: answer,
        draft: structuredClone(answer.settings),
        saved: `Saved. ${label(answer.settings.main_agent)} answers; the picker offers: ${tools}. The chat follows at its next message.`,
      };
    }
    this.paint();
  }

  private paint(): void {
    const { loaded, draft, errors, saved, busy } = this.state;
    const fieldErrors = (field: string) =>
      errors[field]?.length
        ? html`<p class="field-error" id=${`error-${field || 'form'}`} role="alert">${errors[field]!.join(' ')}</p>`
        : nothing;
    const setMain = (event: Event) => {
      const main = (event.target as HTMLSelectElement).value;
      // The main agent is never a tool: choosing it as main takes it off the tools.
      this.state.draft = { main_agent: main, tools: draft!.tools.filter((id) => id !== main) };
      this.state.saved = undefined;
      this.paint();
    };
    const toggleTool = (id: string, on: boolean) => {
      const tools = on ? [...draft!.tools, id] : draft!.tools.filter((tool) => tool !== id);
      // Kept in the order of the canvas agents, as the picker will offer them.
      const order = loaded!.canvas_agents.map((agent) => agent.id);
      this.state.draft = { ...draft!, tools: order.filter((tool) => tools.includes(tool)) };
      this.state.saved = undefined;
      this.paint();
    };
    render(
      html`<h2>Chat settings</h2>
        <p class="settings-intro">Who answers in the editor's chat, and which agents the picker offers for one message.</p>
        ${fieldErrors('')}
        <label class="settings-token"
          >Admin token
          <input
            type="password"
            autocomplete="off"
            .value=${this.token()}
            aria-describedby=${errors.token ? 'error-token' : nothing}
            @change=${(event: Event) => {
              sessionStorage.setItem(TOKEN_KEY, (event.target as HTMLInputElement).value.trim());
              void this.open();
            }}
        /></label>
        ${fieldErrors('token')}
        ${
          loaded && draft
            ? html`<form
                class="settings-form"
                @submit=${(event: Event) => {
                  event.preventDefault();
                  void this.save();
                }}
              >
                <label for="main-agent">Main agent</label>
                <select id="main-agent" @change=${setMain} aria-describedby=${errors.main_agent ? 'error-main_agent' : nothing}>
                  ${loaded.canvas_agents.map(
                    (agent) =>
                      html`<option value=${agent.id} ?selected=${agent.id === draft.main_agent}>${agent.label}</option>`,
                  )}
                </select>
                ${fieldErrors('main_agent')}
                <fieldset aria-describedby=${errors.tools ? 'error-tools' : nothing}>
                  <legend>Tools in the picker</legend>
                  ${loaded.canvas_agents.map((agent) => {
                    const isMain = agent.id === draft.main_agent;
                    return html`<label class="tool-choice"
                      ><input
                        type="checkbox"
                        name="tools"
                        value=${agent.id}
                        .checked=${!isMain && draft.tools.includes(agent.id)}
                        ?disabled=${isMain}
                        @change=${(event: Event) => toggleTool(agent.id, (event.target as HTMLInputElement).checked)}
                      />
                      ${agent.label}${isMain ? html` <small>(the main agent)</small>` : nothing}</label
                    >`;
                  })}
                </fieldset>
                ${fieldErrors('tools')}
                <button type="submit" id="save-settings" ?disabled=${busy}>Save</button>
                ${saved ? html`<p class="saved" role="status">${saved}</p>` : nothing}
              </form>`
            : busy
              ? html`<p>Loading…</p>`
              : nothing
        }`,
      this.root,
    );
  }
}
