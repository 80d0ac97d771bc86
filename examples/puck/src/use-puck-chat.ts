// The glue a Puck team copies: a chat of your own, on @canvas-ai/widget/loop's ChatSession, editing the page in
// Puck. Every hop reads Puck's data (getLayout) and writes to it through the protocol's shared reducer
// (applyOutputs); a turn is one entry of Puck's history (turn-history.ts); the conversation and a running turn are
// kept in sessionStorage, so a reload mid-turn resumes it. Used inside <Puck> (it reads Puck's state).
import { applyOutputsWithResults, type ChatMessage, TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import {
  ChatSession,
  ChatStorage,
  changedPage,
  chatStrings,
  historyNote,
  type SavedMessage,
  type TurnResult,
  type TurnView,
  undoNote,
  undoNotices,
} from '@canvas-ai/widget/loop';
import { createUsePuck, useGetPuck } from '@puckeditor/core';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { config } from './puck-config.js';
import { toData, toDocument } from './puck-document.js';
import { TurnHistory } from './turn-history.js';

/** What the person reads: components named by their Puck label. */
const STRINGS = chatStrings({ componentLabel: (id) => config.components[id as 'Hero']?.label ?? id });

let token: Promise<string> | undefined;
/** The reference server's CSRF token (`GET /api/token`), fetched again after a 403. */
const csrfToken = ({ refresh = false } = {}): Promise<string> =>
  (token =
    !token || refresh
      ? fetch('/api/token')
          .then((response) => response.json())
          .then((body: { token: string }) => body.token)
      : token);

const storage = new ChatStorage('canvas-ai-puck'); // sessionStorage: this tab, across a reload
const usePuck = createUsePuck();

/** The transcript the model reads: messages, answers and notes (not the narration or errors shown). */
const transcript = (messages: readonly SavedMessage[]): ChatMessage[] =>
  messages
    .filter((message) => message.kind !== 'narration' && message.kind !== 'error')
    .map(({ role, text }) => ({ role: role === 'user' ? 'user' : 'assistant', text }));

/**
 * The chat's state and actions for a React UI inside `<Puck>`: the conversation, the running turn's narration, and
 * send, stop, revert (Stop and revert) and undo, with whether each applies now (`busy`, `running`, `canUndo`).
 */
export function usePuckChat() {
  const getPuck = useGetPuck();
  const [, render] = useReducer((n: number) => n + 1, 0);
  const [messages, setMessages] = useState<SavedMessage[]>(() => storage.load()?.messages ?? []);
  const messagesRef = useRef(messages);
  const add = useCallback((message: SavedMessage) => {
    messagesRef.current = [...messagesRef.current, message];
    setMessages(messagesRef.current);
  }, []);
  const [progress, setProgress] = useState(() => storage.load()?.running?.progress ?? '');
  const progressRef = useRef(progress);
  const show = useCallback((text: string) => {
    progressRef.current = text;
    setProgress(text);
  }, []);

  const history = useMemo(() => new TurnHistory(getPuck), [getPuck]);
  const session = useMemo(
    () =>
      new ChatSession({
        settings: () => ({
          endpoint: '/api/hop',
          csrfToken,
          outputTypes: [...TOOL_OUTPUT_TYPES],
          getLayout: () => {
            const { appState, selectedItem } = getPuck();
            return { ...toDocument(appState.data), selectedComponent: selectedItem?.props.id ?? null };
          },
          applyOutputs: (outputs, _response, info) => {
            const { appState, dispatch } = getPuck();
            const { document, results } = applyOutputsWithResults(toDocument(appState.data), outputs);
            // Not recorded: the whole turn becomes one entry at its end. An undo by inverse outputs is its own entry.
            dispatch({ type: 'setData', data: (data) => toData(document, data), recordHistory: info.kind === 'undo' });
            return results;
          },
        }),
        storage: () => storage,
        messages: () => messagesRef.current,
        onChange: render,
        onTurnStart: ({ turn, resumed }) => history.started(turn.requestId, resumed),
        onTurnEnd: (result) => history.ended(result.requestId, changedPage(result.changes)),
        undoInHistory: ({ requestId }) => history.undo(requestId),
        onUndo: (undone) => {
          const { summary, notices } = undoNotices(undone, STRINGS);
          add({ role: 'user', kind: 'note', text: undoNote(undone), shown: summary, notices });
        },
        onHistory: ({ change }) =>
          add({
            role: 'user',
            kind: 'note',
            text: historyNote(change),
            shown: change === 'undone' ? STRINGS.historyUndone : STRINGS.historyRedone,
          }),
      }),
    [getPuck, history, add],
  );

  const view = useMemo<TurnView>(
    () => ({
      onHop: ({ response }) => show(response.progress),
      shown: () => ({ progress: progressRef.current, notices: [] }),
      showEnd: (result: TurnResult, end) => {
        if (progressRef.current) add({ role: 'assistant', kind: 'narration', text: progressRef.current });
        show('');
        if (result.status === 'done') add({ role: 'assistant', kind: 'answer', text: result.response.message });
        else if (result.status === 'error') add({ role: 'assistant', kind: 'error', text: result.error.message });
        else if (!end.reverted)
          add({
            role: 'user',
            kind: 'note',
            text: '(I stopped your last turn before it finished. What it had changed so far stays on the page.)',
            shown: STRINGS.youStopped,
          });
      },
    }),
    [add, show],
  );

  // A reload mid-turn: the kept turn goes on (spec §18). Closing stops a running turn; a restore not begun yet is
  // left to the chat mounted next (React's StrictMode, or Puck, mounting it again), which takes it up once.
  useEffect(() => {
    const kept = storage.load();
    if (kept) void session.restore(kept, view, transcript(messagesRef.current));
    return () => session.close();
  }, [session, view]);

  // Puck's own Undo and Redo: the chat hears when they cross its turn.
  const index = usePuck((puck) => puck.history.index);
  const histories = usePuck((puck) => puck.history.histories);
  useEffect(() => history.moved(session, { index, histories }), [index, histories, history, session]);

  return {
    messages,
    progress,
    busy: session.busy,
    running: session.running !== undefined,
    canUndo: session.canUndo(TOOL_OUTPUT_TYPES),
    send(text: string) {
      if (session.busy) return; // one turn at a time
      add({ role: 'user', text });
      void session.send({ messages: transcript(messagesRef.current) }, view);
    },
    stop: () => session.stop(),
    revert: () => void session.revert(),
    undo: () => void session.undo(),
  };
}
