import { useEffect, useState } from 'react';
import type { ISearchOptions } from '@xterm/addon-search';
import type { TerminalHost } from '../terminal/terminalHost';
import { useUi } from '../state/ui';
import { matchWords } from '../lib/words';

/** Every match highlighted, the current one brighter; the same in both themes. */
const HIGHLIGHT: ISearchOptions = {
  decorations: {
    matchBackground: '#7a6a1f',
    matchBorder: '#c8a92a',
    matchOverviewRuler: '#c8a92a',
    activeMatchBackground: '#d98f00',
    activeMatchBorder: '#ffd166',
    activeMatchColorOverviewRuler: '#ffd166',
  },
};

/** Search in the terminal's scrollback (Ctrl/Cmd+F): as you type, with every match highlighted and counted. */
export function SearchBar({ host }: { host: TerminalHost }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ index: number; count: number } | null>(null);
  // Search finds what the whole history holds. Asked for once the bar is laid out, so that the
  // terminal connects again at the height the bar leaves it: a tmux client started at the old
  // height drew rows the terminal no longer had, which scrolled copies of the screen into its history.
  useEffect(() => host.loadHistory(), [host]);
  useEffect(() => {
    const listening = host.search.onDidChangeResults(({ resultIndex, resultCount }) => setResults({ index: resultIndex, count: resultCount }));
    return () => listening.dispose();
  }, [host]);
  const close = () => {
    host.search.clearDecorations();
    useUi.getState().setSearch(false);
    host.focus();
  };
  const find = (backwards: boolean) => {
    if (!query) return;
    if (backwards) host.search.findPrevious(query, HIGHLIGHT);
    else host.search.findNext(query, HIGHLIGHT);
  };
  const typed = (value: string) => {
    setQuery(value);
    if (!value) {
      host.search.clearDecorations();
      setResults(null);
      return;
    }
    // As it is typed, the newest match (the one nearest the end of the output), as a terminal's
    // search starts where the last lines are; Enter and ↑ go to older ones, Shift+Enter and ↓ back.
    host.term.clearSelection();
    host.search.findPrevious(value, HIGHLIGHT);
  };
  return (
    <div className="searchbar" role="search">
      <input
        aria-label="Search the terminal"
        autoFocus
        value={query}
        onChange={(e) => typed(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(!e.shiftKey);
          if (e.key === 'Escape') close();
        }}
        placeholder="Search scrollback"
      />
      <span className={results?.count === 0 ? 'field-error' : 'hint'} role="status" aria-live="polite">
        {query && results ? matchWords(results.index, results.count) : ''}
      </span>
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
