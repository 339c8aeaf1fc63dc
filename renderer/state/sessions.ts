// The sessions as the engine tells them: the engine is the source of truth, this store mirrors
// its list and its change events, and keeps what only the UI cares about (the active tab).

import { create } from 'zustand';
import type { ClientApi } from '../../daemon/contract/contract';
import { isRunning, listKeeper, withChange, type CliView, type Reconnecting, type SessionChange, type SessionView } from '../../daemon/contract/session';
import { hostOf, keyed, keyedChange } from '../lib/remote';
import { groupByHost } from '../lib/sidebar';
import { visible } from '../lib/words';

export interface SessionsState {
  sessions: SessionView[];
  clis: CliView[];
  activeId: string | null;
  /**
   * The session shown because the one shown went away (removed or archived, here or elsewhere):
   * shown without the keyboard's focus, so that typing meant for the one gone never reaches
   * another agent. Until the person picks a session.
   */
  unfocused: string | null;
  /** Which session went away from under the person, and how: said above the pane. */
  wentAway: { name: string; how: 'removed' | 'archived' } | null;
  loaded: boolean;
  /** A remote host's tab shown before a reload: shown when its host's list comes, unless one was picked meanwhile. */
  awaiting: string | null;
  /** This machine's list (host null), or one host's (keyed): the other hosts' sessions stay as they were. */
  replace(sessions: SessionView[], host?: string | null): void;
  apply(change: SessionChange): void;
  setClis(clis: CliView[]): void;
  activate(id: string | null): void;
  /** Moves a tab to another place locally (the engine is told separately). */
  move(id: string, toIndex: number): string[];
}

/**
 * The tab shown, kept for this browser tab (or window) alone: a reload opens it again. Not in
 * localStorage, so two windows do not fight over it.
 */
const SHOWN_KEY = 'corral.shown';
const storage = () => (typeof sessionStorage === 'undefined' ? null : sessionStorage);
const remembered = () => storage()?.getItem(SHOWN_KEY) ?? null;
const remember = (id: string) => storage()?.setItem(SHOWN_KEY, id);

/** The session shown went away (`name`, `how`): `shown` is shown in its place, without the focus. */
const shownInstead = (shown: string | null, name: string, how: 'removed' | 'archived') => ({ unfocused: shown, wentAway: { name, how } });

export const useSessions = create<SessionsState>((set, get) => ({
  sessions: [],
  clis: [],
  activeId: null,
  unfocused: null,
  wentAway: null,
  loaded: false,
  awaiting: null,
  replace: (list, host = null) =>
    set((state) => {
      const sessions = keepUnchanged(state.sessions, mergeHost(state.sessions, list, host));
      const stays = state.activeId !== null && sessions.some((s) => s.id === state.activeId && s.archivedAt === null);
      // The page's first list: the tab shown before a reload, while it is there (a host's comes
      // with its host's list).
      const first = host === null && !state.loaded && state.activeId === null;
      const before = first ? remembered() : state.awaiting;
      const again = before !== null && sessions.some((s) => s.id === before && s.archivedAt === null) ? before : null;
      const awaiting = again === null && before !== null && hostOf(before) !== null && (first || hostOf(before) !== host) ? before : null;
      const activeId = again ?? (stays ? state.activeId : (sessions.find((s) => s.archivedAt === null)?.id ?? null));
      // The one shown is gone from the list read again (removed or archived while this page was not listening).
      const gone = state.activeId === null || stays ? null : state.sessions.find((s) => s.id === state.activeId);
      return {
        sessions,
        loaded: state.loaded || host === null,
        activeId,
        awaiting,
        ...(gone ? shownInstead(activeId, gone.name, sessions.some((s) => s.id === gone.id) ? 'archived' : 'removed') : {}),
      };
    }),
  apply: (change) =>
    set((state) => {
      const next = applyChange(state, change);
      if (state.activeId !== change.session.id || next.activeId === state.activeId) return next;
      return { ...next, ...shownInstead(next.activeId, change.session.name, change.kind === 'removed' ? 'removed' : 'archived') };
    }),
  setClis: (list) =>
    set((state) => {
      // A label is the person's own clis.toml: its invisible controls are shown (⟨U+202E⟩), never obeyed.
      const clis = list.map((c) => ({ ...c, label: visible(c.label) }));
      return JSON.stringify(clis) === JSON.stringify(state.clis) ? {} : { clis };
    }),
  activate: (id) => set({ activeId: id, unfocused: null, wentAway: null, awaiting: null }),
  move: (id, toIndex) => {
    const sessions = [...get().sessions];
    const from = sessions.findIndex((s) => s.id === id);
    if (from < 0) return sessions.map((s) => s.id);
    const [moved] = sessions.splice(from, 1);
    sessions.splice(Math.max(0, Math.min(toIndex, sessions.length)), 0, moved!);
    set({ sessions });
    return sessions.map((s) => s.id);
  },
}));

// However the tab shown changed (picked, or a neighbour shown for one gone), a reload opens it.
useSessions.subscribe((state, before) => state.activeId !== null && state.activeId !== before.activeId && state.awaiting === null && remember(state.activeId));

/**
 * A list read again, with the sessions that did not change kept as they were (and the whole list
 * when none did): the page reads the list again each time its events socket connects, and what
 * did not change is not drawn again.
 */
export function keepUnchanged(old: SessionView[], fresh: SessionView[]): SessionView[] {
  const before = new Map(old.map((s) => [s.id, s]));
  const kept = fresh.map((s) => {
    const was = before.get(s.id);
    return was && JSON.stringify(was) === JSON.stringify(s) ? was : s;
  });
  return kept.length === old.length && kept.every((s, i) => s === old[i]) ? old : kept;
}

/** Every session after one host's list came (this machine's for null): its own first, then the hosts' in the order they were. */
export function mergeHost(sessions: SessionView[], list: SessionView[], host: string | null): SessionView[] {
  const others = sessions.filter((s) => hostOf(s.id) !== host);
  return host === null ? [...list, ...others] : [...others, ...list];
}

/** The state after one change event. Pure, so it can be tested alone. */
export function applyChange(state: Pick<SessionsState, 'sessions' | 'activeId'>, change: SessionChange): Pick<SessionsState, 'sessions' | 'activeId'> {
  const { session } = change;
  const index = state.sessions.findIndex((s) => s.id === session.id);
  const sessions = withChange(state.sessions, change);
  if (change.kind === 'removed') {
    // Its neighbour in the strip takes its place (an archived session is in the list, not the strip).
    const activeId = state.activeId === session.id ? neighbour(state.sessions, sessions, session.id) : state.activeId;
    return { sessions, activeId };
  }
  if (index < 0) return { sessions, activeId: state.activeId ?? (session.archivedAt === null ? session.id : null) };
  // An archived tab leaves the strip: its neighbour takes its place.
  if (state.activeId === session.id && session.archivedAt !== null) return { sessions, activeId: neighbour(state.sessions, sessions, session.id) };
  return { sessions, activeId: state.activeId };
}

/** The tab after `leaving` in the strip as it was, still in it now; else the one before it. */
function neighbour(before: SessionView[], after: SessionView[], leaving: string): string | null {
  const strip = tabSessions(before, false, null).map((s) => s.id);
  const at = strip.indexOf(leaving);
  const still = new Set(tabSessions(after, false, null).map((s) => s.id));
  const next = strip.slice(at + 1).find((id) => still.has(id));
  const previous = strip.slice(0, Math.max(0, at)).reverse().find((id) => still.has(id));
  return next ?? previous ?? null;
}

/** The tabs in the strip: not archived; with the filter on, those that need you (and the one you are on). */
export function tabSessions(sessions: SessionView[], needsFilter: boolean, activeId: string | null): SessionView[] {
  // In the sidebar's order (by machine, then folder, then the person's order), so the tab strip,
  // the next and previous tab's keys and Alt+1…9 go the way the list reads.
  return groupByHost(sessions, needsFilter, activeId, []).flatMap((machine) => machine.groups.flatMap((group) => group.sessions));
}

/**
 * The running sessions beside `activeId` among `tabs`: the next tab and the previous one, where
 * the keys for the next and the previous tab go (both wrap around), the next first.
 */
export function besideTab(tabs: SessionView[], activeId: string | null): string[] {
  const index = tabs.findIndex((s) => s.id === activeId);
  if (index < 0) return [];
  const beside = [tabs[(index + 1) % tabs.length]!, tabs[(index - 1 + tabs.length) % tabs.length]!];
  return [...new Set(beside.filter((s) => s.id !== activeId && isRunning(s.state)).map((s) => s.id))];
}

/** Keeps the store in step with the engine. Returns the function that stops it. */
export function syncSessions(api: ClientApi & Reconnecting): () => void {
  const store = useSessions.getState();
  // A list read apart from the events socket's hello may be older than a change already applied
  // (a session just made shown as removed): the hello's list wins.
  const keep = listKeeper(
    () => api.listSessions().then(({ sessions }) => sessions),
    (sessions) => store.replace(sessions),
  );
  const reload = (sessions?: SessionView[]) => {
    keep(sessions);
    void api.listClis().then(({ clis }) => store.setClis(clis));
  };
  // CLIs asked about once: a session whose CLI left the catalogue must not ask at each change.
  const askedAbout = new Set<string>();
  const offChange = api.onSessionChange((change) => {
    useSessions.getState().apply(change);
    // A session of a CLI this page has not heard of: the catalogue changed since it was read.
    const { cli, id } = change.session;
    if (hostOf(id) !== null || askedAbout.has(cli) || useSessions.getState().clis.some((c) => c.name === cli)) return;
    askedAbout.add(cli);
    void api.listClis().then(({ clis }) => store.setClis(clis));
  });
  const offReconnect = api.onReconnect?.((sessions) => reload(sessions)) ?? (() => {});
  // A list read already (the page's first look at the daemon) stands until the events socket's
  // hello, whose list replaces it with no change missed.
  if (!useSessions.getState().loaded || !api.onReconnect) reload(undefined);
  return () => {
    offChange();
    offReconnect();
  };
}

/**
 * Keeps a connected host's sessions in the store, keyed by host (lib/remote.ts). Stopping it
 * (the link dropped) leaves them listed as last known.
 */
export function syncHostSessions(host: string, client: ClientApi): () => void {
  let current = true;
  const reload = listKeeper(
    () => client.listSessions().then(({ sessions }) => sessions, () => null),
    (sessions) => current && useSessions.getState().replace(sessions.map((s) => keyed(host, s)), host),
  );
  const offChange = client.onSessionChange((change) => current && useSessions.getState().apply(keyedChange(host, change)));
  const offReconnect = (client as Reconnecting).onReconnect?.((sessions) => current && reload(sessions)) ?? (() => {});
  reload(undefined);
  return () => {
    current = false;
    offChange();
    offReconnect();
  };
}

/**
 * Opens a session's tab once it is listed (a link, the tray, a notification): a host's session
 * (HOST/ID) may be asked for before its host's list is in. Returns the function that stops waiting.
 */
export function activateWhenListed(key: string): () => void {
  const listed = () => useSessions.getState().sessions.some((s) => s.id === key);
  if (listed()) {
    useSessions.getState().activate(key);
    return () => {};
  }
  const stop = useSessions.subscribe(() => {
    if (!listed()) return;
    stop();
    useSessions.getState().activate(key);
  });
  return stop;
}

/** Folders of existing sessions, most recently used first: the new-session dialog offers them. */
export function recentFolders(sessions: SessionView[]): string[] {
  const byTime = [...sessions].sort((a, b) => (b.startedAt ?? b.createdAt) - (a.startedAt ?? a.createdAt));
  return [...new Set(byTime.map((s) => s.cwd))];
}
