import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { keyContext } from '../lib/keys';
import { visible } from '../lib/words';
import { matchedRanges, matchPalette, paletteItems, type PaletteCommand } from '../lib/palette';
import { useSessions } from '../state/sessions';
import { useUi } from '../state/ui';

/** How long a match stays highlighted before `onRest` is told (moving through the list says nothing). */
const REST_MS = 120;

/**
 * Ctrl/Cmd+K: find a session by name, CLI, folder or branch, or run a common action. `onRest`
 * hears of the match highlighted once it has stayed so for a moment (a session's terminal can
 * connect before Enter).
 */
export function Palette({ onCommand, onRest, offerNotifications }: { onCommand(command: PaletteCommand): void; onRest?(command: PaletteCommand): void; offerNotifications: boolean }) {
  const sessions = useSessions((s) => s.sessions);
  const clis = useSessions((s) => s.clis);
  const activeId = useSessions((s) => s.activeId);
  const needsFilter = useUi((s) => s.needsFilter);
  const [query, setQuery] = useState('');
  /** The match chosen with the arrows or the pointer; null: the first (see `start`). */
  const [selected, setSelected] = useState<number | null>(null);
  const items = useMemo(
    () => matchPalette(paletteItems(sessions, clis, activeId, { needsFilter, offerNotifications, ...keyContext() }), query),
    [sessions, clis, activeId, needsFilter, offerNotifications, query],
  );
  // Nothing typed: the first session to go to that is not the one shown (matchPalette).
  const start = query.trim() ? 0 : Math.max(0, items.findIndex((item) => !(item.command.kind === 'go' && item.command.id === activeId)));
  const current = Math.min(selected ?? start, Math.max(0, items.length - 1));
  // By its key: the list is made again at each session change, the match highlighted stays.
  const highlighted = items[current];
  const latest = useRef(highlighted);
  latest.current = highlighted;
  useEffect(() => {
    if (!highlighted || !onRest) return;
    const rested = setTimeout(() => latest.current && onRest(latest.current.command), REST_MS);
    return () => clearTimeout(rested);
  }, [highlighted?.key, onRest]);
  const close = () => useUi.getState().setPalette(false);
  const run = (index: number) => {
    const item = items[index];
    if (!item) return;
    close();
    onCommand(item.command);
  };

  return (
    <div className="dialog-backdrop palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div role="dialog" aria-modal="true" aria-label="Command palette" className="dialog palette">
        <input
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={items[current] ? `palette-${items[current].key}` : undefined}
          aria-label="Find a session or an action"
          placeholder="Find a session or an action…"
          value={query}
          autoFocus
          onChange={(e) => {
            setQuery(e.target.value);
            setSelected(null);
          }}
          onKeyDown={(e) => {
            // Escape, or the key that opened it, closes it.
            if (e.key === 'Escape' || (e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey) && !e.shiftKey)) close();
            else if (e.key === 'ArrowDown') setSelected((current + 1) % Math.max(1, items.length));
            else if (e.key === 'ArrowUp') setSelected((current - 1 + items.length) % Math.max(1, items.length));
            else if (e.key === 'Enter') run(current);
            else return;
            e.preventDefault();
          }}
        />
        <ul id="palette-list" role="listbox" aria-label="Matches" className="palette-list">
          {items.map((item, index) => (
            <li
              key={item.key}
              id={`palette-${item.key}`}
              role="option"
              aria-selected={index === current}
              // The pointer moved onto it: a palette opened under a pointer at rest (a browser
              // says the pointer entered what appeared under it) highlights nothing.
              onMouseMove={(e) => (e.movementX !== 0 || e.movementY !== 0) && index !== current && setSelected(index)}
              onMouseDown={(e) => {
                e.preventDefault();
                run(index);
              }}
            >
              <span className="palette-title">
                <Marked text={item.title} query={query} />
              </span>
              {item.state && <span className="palette-state">{item.state}</span>}
              {item.detail && <span className="palette-detail">{visible(item.detail)}</span>}
              {item.keys && <kbd className="palette-keys">{item.keys}</kbd>}
            </li>
          ))}
          {items.length === 0 && <li className="hint">Nothing matches “{query}”.</li>}
        </ul>
      </div>
    </div>
  );
}

/** A title with the query's words marked where they were found (visible() on every piece). */
function Marked({ text, query }: { text: string; query: string }) {
  const ranges = matchedRanges(text, query);
  if (ranges.length === 0) return <>{visible(text)}</>;
  const pieces: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) pieces.push(visible(text.slice(at, start)));
    pieces.push(<mark key={start}>{visible(text.slice(start, end))}</mark>);
    at = end;
  }
  if (at < text.length) pieces.push(visible(text.slice(at)));
  return <>{pieces}</>;
}
