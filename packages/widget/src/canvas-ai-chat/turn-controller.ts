import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { canvasAiEvent } from '../events.js';
import { startTurn, type Turn, type TurnOptions, type TurnResult } from '../hop-loop.js';
import type { TurnError } from '../turn-error.js';
import type { DeepChatElement, Signals } from './deep-chat-types.js';
import { ProgressView } from './progress-view.js';
import { answerMessage, attachedFiles, errorMessage, transcriptOf } from './transcript.js';

/** The loop's settings the element decides for each new turn (endpoint, host functions, token, limits). */
export type TurnSettings = Omit<TurnOptions, 'messages' | 'attachments' | 'agent' | 'onHop'>;

/** What the controller asks its element for, handed in as callbacks (the `@lit/task` style). */
export interface TurnControllerOptions {
  /** The `<deep-chat>` element, once created. */
  chat: () => DeepChatElement | undefined;
  /** The loop's settings for a new turn. */
  settings: () => TurnSettings;
  /** The main agent's id, when the agents config is known (the narration block's role until a response names one). */
  mainAgentId: () => string | undefined;
  /** The agent picked for this message, resetting the pick (a pick applies to one message). */
  takePick: () => string | undefined;
  /** Told when a turn failed, so the element can react (e.g. drop a rejected CSRF token). */
  onFailed: (error: TurnError) => void;
}

/**
 * Connects the hop loop to `<canvas-ai-chat>` (the Lit `ReactiveController` way to reach framework-free async
 * work): deep-chat's `connect.handler` starts a turn here; the controller shows the narration, ends deep-chat's
 * request with the answer or the error (`signals.onResponse` only then, so deep-chat's loader covers send → first
 * response), dispatches the DOM events, and stops the turn when the element leaves the page.
 */
export class TurnController implements ReactiveController {
  private turn: Turn | undefined;

  /** `host` gets the controller's updates and dispatches its events; `options` is all it asks of the host. */
  constructor(
    private readonly host: ReactiveControllerHost & EventTarget,
    private readonly options: TurnControllerOptions,
  ) {
    host.addController(this);
  }

  /** Whether a turn is running. */
  get running(): boolean {
    return this.turn !== undefined;
  }

  hostDisconnected(): void {
    this.stop();
  }

  /** Stops the running turn, if any. */
  stop(): void {
    this.turn?.stop();
  }

  /** deep-chat's `connect.handler`: one submitted message, one turn. */
  readonly handle = (body: unknown, signals: Signals): void => {
    // deep-chat blocks a second submit while a request runs; a programmatic one must not start a second turn.
    if (this.turn) {
      void signals.onResponse(errorMessage('Wait for the current answer, or stop it, before sending another message.'));
      return;
    }
    void this.run(body, signals);
  };

  private async run(body: unknown, signals: Signals): Promise<void> {
    const chat = this.options.chat();
    if (!chat) return;
    const messages = transcriptOf(chat.getMessages());
    const attachments = attachedFiles(body);
    const agent = this.options.takePick();
    const view = new ProgressView(chat, agent ?? this.options.mainAgentId() ?? 'ai');
    const settings = this.options.settings();
    const turn = startTurn({
      ...settings,
      messages,
      attachments,
      agent,
      onHop: (report) => {
        const { response } = report;
        view.show(response.progress, response.should_continue ? 'running' : 'done', response.agent.id);
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-hop', {
            requestId: report.requestId,
            hop: report.hop,
            response,
            applyResults: report.applyResults,
          }),
        );
      },
    });
    this.turn = turn;
    this.host.requestUpdate();
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-turn-start', {
        requestId: turn.requestId,
        agent,
        message: messages.at(-1)?.text ?? '',
        attachments: attachments.length,
      }),
    );

    const result = await turn.result;
    this.turn = undefined;
    this.host.requestUpdate();
    await this.finish(result, view, signals);
  }

  private async finish(result: TurnResult, view: ProgressView, signals: Signals): Promise<void> {
    const { requestId, hops } = result;
    switch (result.status) {
      case 'done': {
        view.finish('done');
        const { message, agent } = result.response;
        // An empty answer would be an error bubble in deep-chat; the narration block already said it all. The answer is
        // model text: escaped html, never deep-chat's markdown (which makes javascript: links and loads images).
        await signals.onResponse(message.trim().length > 0 ? answerMessage(message, agent.id) : []);
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', {
            requestId,
            status: 'done',
            hops,
            response: result.response,
            error: undefined,
          }),
        );
        return;
      }
      case 'stopped':
        view.finish('stopped', { always: true });
        await signals.onResponse([]);
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', {
            requestId,
            status: 'stopped',
            hops,
            response: undefined,
            error: undefined,
          }),
        );
        return;
      case 'error':
        // The narration so far stays; the server's error body may carry a fuller one.
        view.finish('failed', { progress: result.error.body?.progress });
        // Escaped html with its code: the message is the server's (or an upstream's) text, never markdown.
        await signals.onResponse(errorMessage(result.error.message, result.error.code));
        this.options.onFailed(result.error);
        this.host.dispatchEvent(canvasAiEvent('canvas-ai-error', { requestId, error: result.error }));
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', {
            requestId,
            status: 'error',
            hops,
            response: undefined,
            error: result.error,
          }),
        );
        return;
    }
  }
}
