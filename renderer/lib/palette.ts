// The command palette's items and how a query picks among them. Pure: the component only draws.

import { isRunning, type CliView, type SessionView } from '../../daemon/contract/session';
import { hasRepository } from './changes';
import { hostOf } from './remote';
import { keyLabel, type Action } from './keys';
import { sessionLink } from './sessionLink';
import { badge } from './words';

export type PaletteCommand =
  | { kind: 'go'; id: string }
  | { kind: 'restore'; id: string }
  | { kind: 'action'; action: Action }
  | { kind: 'archive'; id: string }
  | { kind: 'copy-link'; id: string }
  | { kind: 'toggle-needs-filter' }
  | { kind: 'enable-notifications' }
  | { kind: 'settings' }
  | { kind: 'usage' };

export interface PaletteItem {
  key: string;
  title: string;
  /** What else the query is matched against, shown dimmed. */
  detail: string;
  command: PaletteCommand;
  /** A session's state, as its tab says it ("needs you", "working", "stopped"). */
  state?: string;
  /** The keys that do the same ("Ctrl+Shift+S"). */
  keys?: string;
}

export interface PaletteOptions {
  needsFilter: boolean;
  /** Shortcuts are shown with Cmd. */
  mac?: boolean;
  /** In a browser's tab: shortcuts a browser keeps for itself are not offered. */
  browser?: boolean;
  /** The browser could show notifications, if the person allows them. */
  offerNotifications?: boolean;
}

export function paletteItems(sessions: SessionView[], clis: CliView[], activeId: string | null, { needsFilter, offerNotifications = false, mac = false, browser = false }: PaletteOptions): PaletteItem[] {
  const label = (s: SessionView) => clis.find((c) => c.name === s.cli)?.label ?? s.cli;
  // A remote session's host comes first: the same folder can be on two machines.
  const detail = (s: SessionView) => [hostOf(s.id) ?? '', label(s), s.cli.toLowerCase() !== label(s).toLowerCase() ? s.cli : '', s.cwd, s.git ? s.git.branch : ''].filter(Boolean).join(' · ');
  const items: PaletteItem[] = [];
  const active = sessions.find((s) => s.id === activeId && s.archivedAt === null);
  if (active) {
    const up = isRunning(active.state);
    const name = active.name;
    items.push(
      up
        ? { key: 'stop', title: `Stop ${name}`, detail: 'its conversation is kept', command: { kind: 'action', action: { kind: 'stop' } } }
        : { key: 'start', title: `${active.resumable ? 'Resume' : 'Start'} ${name}`, detail: '', command: { kind: 'action', action: { kind: 'start' } } },
      ...(hasRepository(active)
        ? [
            {
              key: 'changes',
              title: `Review changes of ${name}`,
              detail: active.worktree ? `its worktree against ${active.worktree.base}` : 'what its folder has not committed',
              command: { kind: 'action', action: { kind: 'changes' } },
            } as PaletteItem,
          ]
        : []),
      { key: 'rename', title: `Rename ${name}…`, detail: '', command: { kind: 'action', action: { kind: 'rename' } } },
      { key: 'archive', title: `Archive ${name}`, detail: up ? 'stops it; everything is kept' : 'everything is kept', command: { kind: 'archive', id: active.id } },
      { key: 'restart', title: `Restart ${name} clean…`, detail: 'lets its conversation go', command: { kind: 'action', action: { kind: 'restart-clean' } } },
      { key: 'remove', title: `Remove ${name}…`, detail: '', command: { kind: 'action', action: { kind: 'remove' } } },
      { key: 'link', title: `Copy link to ${name}`, detail: sessionLink(active.id), command: { kind: 'copy-link', id: active.id } },
    );
  }
  items.push(
    { key: 'new', title: 'New session…', detail: '', command: { kind: 'action', action: { kind: 'new-session' } } },
    { key: 'next-needing', title: 'Next session that needs you', detail: '', command: { kind: 'action', action: { kind: 'next-needing' } } },
    {
      key: 'needs-filter',
      title: needsFilter ? 'Show all sessions' : 'Show only sessions that need you',
      detail: '',
      command: { kind: 'toggle-needs-filter' },
    },
    { key: 'sidebar', title: 'Show or hide the sidebar', detail: 'sessions by folder', command: { kind: 'action', action: { kind: 'toggle-sidebar' } } },
    { key: 'sessions', title: 'Move to the session list', detail: 'then the arrow keys, and Enter shows one', command: { kind: 'action', action: { kind: 'focus-sessions' } } },
    { key: 'settings', title: 'Settings…', detail: 'theme, terminal font and size', command: { kind: 'settings' } },
    { key: 'usage', title: 'Usage…', detail: 'what each session costs: tokens, cost, context, quota', command: { kind: 'usage' } },
  );
  if (offerNotifications) {
    items.push({ key: 'notifications', title: 'Turn on notifications', detail: 'when a session needs you or ends by itself', command: { kind: 'enable-notifications' } });
  }
  for (const s of sessions) {
    if (s.archivedAt === null) items.push({ key: `go-${s.id}`, title: `Go to ${s.name}`, detail: detail(s), command: { kind: 'go', id: s.id }, state: badge(s).text });
  }
  for (const s of sessions) {
    if (s.archivedAt !== null) items.push({ key: `restore-${s.id}`, title: `Restore ${s.name}`, detail: `archived · ${detail(s)}`, command: { kind: 'restore', id: s.id } });
  }
  for (const item of items) {
    const keys = keyLabel(item.key, { mac, browser });
    if (keys) item.keys = keys;
  }
  return items;
}

/**
 * Every word of the query must be found in the title, the detail or the state: as the start of
 * a word of the title (best), of a word elsewhere, inside a word, as its letters in order
 * within one word ("blng" finds "billing"), or, last, across the title's words from the start of
 * one ("s09ren" finds "s09-renamed"). The better match first; between matches as good,
 * sessions, then archived ones, then actions ("new" puts "New session…" above a session whose
 * folder is news/, and "go" a session above an action that mentions going).
 */
export function matchPalette(items: PaletteItem[], query: string): PaletteItem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  // Nothing typed: the sessions to go to first, then the actions, then the archived sessions. The
  // match highlighted at the start is a session to go to (Enter at once never stops, archives or
  // removes one): the first that is not the one shown (Palette).
  if (words.length === 0) {
    const order = (item: PaletteItem) => (item.command.kind === 'go' ? 0 : item.command.kind === 'restore' ? 2 : 1);
    // (A sort keeps the order of items it finds equal.)
    return [...items].sort((a, b) => order(a) - order(b));
  }
  const scored: { item: PaletteItem; score: number; at: number }[] = [];
  items.forEach((item, at) => {
    const haystack = `${item.title} ${item.detail} ${item.state ?? ''}`.toLowerCase();
    const tokens = haystack.match(WORDS) ?? [];
    const title = item.title.toLowerCase();
    const titleTokens = title.match(WORDS) ?? [];
    let score = 0;
    for (const word of words) {
      let found = titleTokens.some((token) => token.startsWith(word)) ? 4 : wordScore(word, haystack, tokens);
      // Last, its letters in order across the title's words, from the start of one ("s09ren"
      // finds "s09-renamed", "tldone" "tilde-one").
      if (found === 0 && acrossWords(word, title)) found = 0.5;
      if (found === 0) return;
      score += found;
    }
    scored.push({ item, score, at });
  });
  const rank = (item: PaletteItem) => (item.command.kind === 'go' ? 0 : item.command.kind === 'restore' ? 1 : 2);
  return scored.sort((a, b) => b.score - a.score || rank(a.item) - rank(b.item) || a.at - b.at).map((s) => s.item);
}

/** 3: starts a word; 2: inside the text; 1: its letters in order within one word; 0: not there. */
function wordScore(word: string, haystack: string, tokens: string[]): number {
  if (tokens.some((token) => token.startsWith(word))) return 3;
  if (haystack.includes(word)) return 2;
  return tokens.some((token) => lettersInOrder(word, token)) ? 1 : 0;
}

/** The words of a title or a detail: what lies between spaces, slashes, dots, dashes and the like. */
const WORDS = /[^\s/·_.:-]+/g;

/** Where `word`'s letters are found in order in `text` between `from` and `to`, each at its first place after the last; null when they are not. */
function lettersInOrder(word: string, text: string, from = 0, to = text.length): number[] | null {
  const at: number[] = [];
  for (let i = from; i < to && at.length < word.length; i++) if (text[i] === word[at.length]) at.push(i);
  return at.length === word.length ? at : null;
}

/** Where `word`'s letters are found in order in `text`, from the start of one of its words on and across the words after it; null when they are not. */
function acrossWords(word: string, text: string): number[] | null {
  for (const start of text.matchAll(WORDS)) {
    const at = text[start.index] === word[0] ? lettersInOrder(word, text, start.index) : null;
    if (at) return at;
  }
  return null;
}

/**
 * Where the query's words are found in a title, for the palette to mark them: [start, end) ranges
 * in order, not overlapping. A word is marked where matchPalette finds it in the title (the start
 * of a word, anywhere in it, its letters in order within one word, or across words from the start
 * of one); a word found only in the detail marks nothing.
 */
export function matchedRanges(title: string, query: string): [number, number][] {
  const lower = title.toLowerCase();
  const marked = new Array<boolean>(title.length).fill(false);
  const tokens = [...lower.matchAll(WORDS)].map((m) => ({ at: m.index, text: m[0] }));
  for (const word of query.toLowerCase().split(/\s+/).filter(Boolean)) {
    const start = tokens.find((t) => t.text.startsWith(word));
    const inside = start ? start.at : lower.indexOf(word);
    if (inside >= 0) {
      for (let i = inside; i < inside + word.length; i++) marked[i] = true;
      continue;
    }
    const within = tokens.map((t) => lettersInOrder(word, lower, t.at, t.at + t.text.length)).find((at) => at !== null);
    for (const i of within ?? acrossWords(word, lower) ?? []) marked[i] = true;
  }
  const ranges: [number, number][] = [];
  marked.forEach((on, i) => {
    if (!on) return;
    const last = ranges.at(-1);
    if (last && last[1] === i) last[1] = i + 1;
    else ranges.push([i, i + 1]);
  });
  return ranges;
}
