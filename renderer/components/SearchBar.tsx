import { useEffect, useRef, useState } from 'react';
import type { ISearchOptions } from '@xterm/addon-search';
import type { TerminalHost } from '../terminal/terminalHost';
import { useUi } from '../state/ui';
import { ACTIVE_MATCH } from '../terminal/themes';
import { matchWords } from '../lib/words';

/**
 * Every match highlighted, the current one brighter; the same in both themes. The current one is
 * also the terminal's selection, drawn in the same colour while the bar is open (TerminalHost.searching).
 */
const HIGHLIGHT: ISearchOptions = {
  decorations: {
    matchBackground: '#7a6a1f',
    matchBorder: '#c8a92a',
    matchOverviewRuler: '#c8a92a',
    activeMatchBackground: ACTIVE_MATCH,
    activeMatchBorder: '#ffd166',
    activeMatchColorOverviewRuler: '#ffd166',
  },
};

/** What was last searched for: the bar opens with it selected and found again (typing replaces it). */
let lastQuery = '';

/**
 * Search in the terminal's scrollback (Ctrl/Cmd+F): as you type, with every match highlighted and
 * counted. Over the terminal, not above it: the terminal, and so its agent, keeps its size. One
 * terminal's: a switch of tabs closes it (Workspace).
 */
export function SearchBar({ host }: { host: TerminalHost }) {
  const [query, setQuery] = useState(lastQuery);
  const [results, setResults] = useState<{ index: number; count: number } | null>(null);
  // Search finds what the whole history holds. Asked for once the bar is laid out, so that the
  // terminal connects again at the height the bar leaves it: a tmux client started at the old
  // height drew rows the terminal no longer had, which scrolled copies of the screen into its history.
  useEffect(() => host.loadHistory(), [host]);
  useEffect(() => {
    host.searching(true);
    return () => {
      host.searching(false);
      host.search.clearDecorations();
    };
  }, [host]);
  // The newest match that typing went to stays the newest while the person has not moved from it:
  // the history the bar asked for may still be coming (in parts, the terminal started again with
  // it), and a query typed over part of it counted only the matches so far.
  const following = useRef(false);
  /** The newest match of `value` (the one nearest the end of the output), from no selection. */
  const findNewest = (value: string) => {
    host.term.clearSelection();
    host.find(value, true, HIGHLIGHT);
  };
  useEffect(() => {
    let count = -1;
    const listening = host.search.onDidChangeResults(({ resultIndex, resultCount }) => {
      const more = resultCount !== count;
      count = resultCount;
      if (following.current && more && resultCount > 0 && resultIndex !== resultCount - 1 && lastQuery) return findNewest(lastQuery);
      setResults({ index: resultIndex, count: resultCount });
    });
    // Opened again with the last search: it is found at once, counted and highlighted, as typed.
    if (lastQuery) {
      following.current = true;
      findNewest(lastQuery);
    }
    return () => listening.dispose();
  }, [host]);
  // Its marks go as the bar goes (the effect above).
  const close = () => {
    useUi.getState().setSearch(false);
    host.focus();
  };
  const find = (backwards: boolean) => {
    if (!query) return;
    following.current = false;
    // The first find of a query the bar opened with starts at the newest match, as typing does.
    if (results === null) host.term.clearSelection();
    host.find(query, results === null || backwards, HIGHLIGHT);
  };
  const typed = (value: string) => {
    setQuery(value);
    lastQuery = value;
    if (!value) {
      host.search.clearDecorations();
      setResults(null);
      return;
    }
    // As it is typed, the newest match (the one nearest the end of the output), as a terminal's
    // search starts where the last lines are; Enter and ↑ go to older ones, Shift+Enter and ↓ back.
    following.current = true;
    findNewest(value);
  };
  return (
    <div className="searchbar" role="search">
      <input
        aria-label="Search the terminal"
        autoFocus
        onFocus={(e) => e.currentTarget.select()}
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
