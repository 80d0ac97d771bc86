// The chat's own UI, in React: the conversation, the running turn's narration, and its controls (Send, Stop, Stop and
// revert, Undo). Everything it does comes from usePuckChat (use-puck-chat.ts).
import { type FormEvent, useState } from 'react';
import { usePuckChat } from './use-puck-chat.js';

export function ChatPanel() {
  const chat = usePuckChat();
  const [draft, setDraft] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!draft.trim() || chat.busy) return;
    chat.send(draft.trim());
    setDraft('');
  };
  return (
    <aside className="chat" aria-label="Chat">
      <ol className="messages">
        {chat.messages.map((message, at) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the conversation only grows; a message keeps its place.
          <li key={at} className={`message ${message.kind ?? message.role}`}>
            {message.shown ?? message.text}
            {message.notices?.map((notice) => (
              <div key={notice} className="notice">
                {notice}
              </div>
            ))}
          </li>
        ))}
        {chat.running && (
          <li className="message narration running" aria-live="polite">
            {chat.progress || 'Working…'}
          </li>
        )}
      </ol>
      <div className="controls">
        {chat.running && (
          <>
            <button type="button" onClick={chat.stop}>
              Stop
            </button>
            <button type="button" onClick={chat.revert}>
              Stop and revert
            </button>
          </>
        )}
        {chat.canUndo && (
          <button type="button" onClick={chat.undo}>
            Undo
          </button>
        )}
      </div>
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={draft}
          placeholder="Ask the agent…"
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={chat.busy}>
          Send
        </button>
      </form>
    </aside>
  );
}
