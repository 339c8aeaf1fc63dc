import { useState } from 'react';
import type { TerminalHost } from '../terminal/terminalHost';
import { useUi } from '../state/ui';

/** Search in the terminal's scrollback (Ctrl/Cmd+F). */
export function SearchBar({ host }: { host: TerminalHost }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<boolean | null>(null);
  const close = () => {
    host.search.clearDecorations();
    useUi.getState().setSearch(false);
    host.focus();
  };
  const find = (backwards: boolean) => {
    if (!query) return;
    setFound(backwards ? host.search.findPrevious(query) : host.search.findNext(query));
  };
  return (
    <div className="searchbar" role="search">
      <input
        aria-label="Search the terminal"
        autoFocus
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(e.shiftKey);
          if (e.key === 'Escape') close();
        }}
        placeholder="Search scrollback"
      />
      {found === false && <span className="field-error">not found</span>}
      <button type="button" onClick={() => find(true)} aria-label="Previous match">
        ↑
      </button>
      <button type="button" onClick={() => find(false)} aria-label="Next match">
        ↓
      </button>
      <button type="button" onClick={close} aria-label="Close search">
        ×
      </button>
    </div>
  );
}
