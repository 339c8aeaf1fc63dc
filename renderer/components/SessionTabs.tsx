import { useState } from 'react';
import type { Action } from '../lib/keys';
import { badge } from '../lib/words';
import { UP_STATES, useSessions } from '../state/sessions';
import type { ClientApi } from '../../daemon/contract/contract';

/** Every session as a tab: the CLI's colour and label, the name, the state. Drag to reorder. */
export function SessionTabs({ api, onAction }: { api: ClientApi; onAction(action: Action): void }) {
  const sessions = useSessions((s) => s.sessions);
  const clis = useSessions((s) => s.clis);
  const activeId = useSessions((s) => s.activeId);
  const activate = useSessions((s) => s.activate);
  const [dragged, setDragged] = useState<string | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const active = sessions.find((s) => s.id === activeId);

  return (
    <header className="tabbar">
      <div role="tablist" aria-label="Sessions" className="tabs">
        {sessions.map((session, index) => {
          const cli = clis.find((c) => c.name === session.cli);
          const state = badge(session);
          return (
            <button
              key={session.id}
              role="tab"
              type="button"
              id={`tab-${session.id}`}
              aria-selected={session.id === activeId}
              aria-label={`${session.name}, ${cli?.label ?? session.cli}, ${state.text}`}
              className="tab"
              data-session={session.id}
              draggable
              onClick={() => activate(session.id)}
              onDragStart={(e) => {
                setDragged(session.id);
                e.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                if (!dragged || dragged === session.id) return;
                const ids = useSessions.getState().move(dragged, index);
                void api.reorderSessions({ ids });
                setDragged(null);
              }}
              title={`${session.cwd}${index < 9 ? ` — Ctrl+${index + 1}` : ''}`}
            >
              <span className="cli-dot" style={{ background: cli?.color ?? '#8b8b8b' }} aria-hidden="true" />
              <span className="cli-label">{cli?.label ?? session.cli}</span>
              <span className="tab-name">{session.name}</span>
              <span className={`state state-${state.tone}`} data-state={session.state}>
                {state.text}
              </span>
            </button>
          );
        })}
      </div>
      <button type="button" className="new-tab" onClick={() => onAction({ kind: 'new-session' })} aria-label="New session (Ctrl+T)" title="New session (Ctrl+T)">
        +
      </button>
      {active && (
        <div className="menu">
          <button type="button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)} aria-label={`Actions for ${active.name}`}>
            ⋯
          </button>
          {menuOpen && (
            <div role="menu" className="menu-list" onClick={() => setMenuOpen(false)}>
              {UP_STATES.has(active.state) ? (
                <MenuItem label="Stop" keys="Ctrl+Shift+S" onClick={() => onAction({ kind: 'stop' })} />
              ) : (
                <MenuItem label={active.resumable ? 'Resume' : 'Start'} keys="Ctrl+Shift+R" onClick={() => onAction({ kind: 'start' })} />
              )}
              <MenuItem label="Restart clean…" keys="Ctrl+Shift+K" onClick={() => onAction({ kind: 'restart-clean' })} />
              <MenuItem label="Rename…" keys="F2" onClick={() => onAction({ kind: 'rename' })} />
              <MenuItem label="Remove…" keys="Ctrl+Shift+W" onClick={() => onAction({ kind: 'remove' })} />
              <MenuItem label="Copy link" keys="" onClick={() => void navigator.clipboard?.writeText(`corral://session/${active.id}`).catch(() => {})} />
            </div>
          )}
        </div>
      )}
    </header>
  );
}

function MenuItem({ label, keys, onClick }: { label: string; keys: string; onClick(): void }) {
  return (
    <button type="button" role="menuitem" onClick={onClick}>
      <span>{label}</span>
      <kbd>{keys}</kbd>
    </button>
  );
}
