// The Puck example: Puck from the npm registry, laid out with its own parts, its Undo and Redo, and the chat.
import { createUsePuck, type Data, Puck, useGetPuck } from '@puckeditor/core';
import '@puckeditor/core/no-external.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatPanel } from './chat-panel.js';
import { config } from './puck-config.js';
import './example.css';

/** The page is kept in sessionStorage, as the chat keeps its turn: a reload mid-turn finds both where they were. */
const PAGE_KEY = 'puck-example:page';
const empty: Data = { content: [], root: { props: { title: '' } } };
const initialData = JSON.parse(sessionStorage.getItem(PAGE_KEY) ?? 'null') ?? empty;
const usePuck = createUsePuck();

/** Puck's own Undo and Redo (its history), and the page title the agent sets. */
function Toolbar() {
  const history = usePuck((puck) => puck.history);
  const title = usePuck((puck) => puck.appState.data.root.props?.title);
  return (
    <header className="toolbar">
      <h1 id="page-title">{title || 'Untitled page'}</h1>
      <button type="button" onClick={history.back} disabled={!history.hasPast}>
        Undo
      </button>
      <button type="button" onClick={history.forward} disabled={!history.hasFuture}>
        Redo
      </button>
    </header>
  );
}

/** For the end-to-end test and the console: Puck's state and actions (`getPuck()`). */
function ExposePuck() {
  Object.assign(window, { getPuck: useGetPuck() });
  return null;
}

function App() {
  return (
    <Puck config={config} data={initialData} onChange={(data) => sessionStorage.setItem(PAGE_KEY, JSON.stringify(data))}>
      <div className="layout">
        <Toolbar />
        <nav className="components" aria-label="Components">
          <Puck.Components />
        </nav>
        <main className="preview">
          <Puck.Preview />
        </main>
        <section className="fields" aria-label="Fields">
          <Puck.Fields />
        </section>
        <ChatPanel />
      </div>
      <ExposePuck />
    </Puck>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
