// The renderer's logic, without a browser: the session store, the words, the shortcuts.

import { describe, expect, it, vi } from 'vitest';
import type { SessionChange, SessionEvent, SessionView } from '../../daemon/contract/session';
import { keyLabel, shortcut, withKeys } from '../lib/keys';
import { matchedRanges, matchPalette, paletteItems } from '../lib/palette';
import { folderSuggestions, folderToList } from '../lib/folderPicker';
import { findPaths, webLink } from '../lib/paths';
import { sessionInFragment, sessionLink } from '../lib/sessionLink';
import { besideTab } from '../state/sessions';
import { badge, eventLine, lostConversation, lostWords, matchWords, runningFor, startWords, visible, whyStopped } from '../lib/words';
import { applyChange, keepUnchanged, recentFolders, syncSessions, tabSessions, useSessions } from '../state/sessions';
import { sessionView } from './fixtures';
import { ANSI_NAMES, contrast, MIN_CONTRAST, THEMES } from '../terminal/themes';
import { codePoint, HIDDEN, MAYBE_HIDDEN } from '../../daemon/contract/hiddenCharacters';

const session = (over: Partial<SessionView> = {}) => sessionView({ createdAt: 1, startedAt: 1, ...over });
const event = (id: number, kind: SessionEvent['kind'], message: string = kind, detail = {}): SessionEvent => ({
  id,
  sessionId: 'a',
  at: new Date(2026, 10, 30, 14, 2).getTime(),
  kind,
  message,
  detail,
});

describe('the session store', () => {
  it('adds, updates and removes, and moves the active tab off a removed one', () => {
    let state = { sessions: [] as SessionView[], activeId: null as string | null };
    state = applyChange(state, { kind: 'added', session: session({ id: 'a' }) });
    expect(state.activeId).toBe('a');
    state = applyChange(state, { kind: 'added', session: session({ id: 'b' }) });
    state = applyChange(state, { kind: 'updated', session: session({ id: 'a', state: 'stopped' }) });
    expect(state.sessions.map((s) => `${s.id}:${s.state}`)).toEqual(['a:stopped', 'b:running']);
    state = applyChange(state, { kind: 'removed', session: session({ id: 'a' }) });
    expect(state).toEqual({ sessions: [session({ id: 'b' })], activeId: 'b' });
  });

  it('moves the active tab off a removed one to a neighbour in the strip, never to an archived session', () => {
    const sessions = [session({ id: 'x' }), session({ id: 'shown' }), session({ id: 'kept', archivedAt: 5 }), session({ id: 'y' })];
    const removed = (list: SessionView[]) => applyChange({ sessions: list, activeId: 'shown' }, { kind: 'removed', session: session({ id: 'shown' }) }).activeId;
    expect(removed(sessions)).toBe('y');
    expect(removed(sessions.slice(0, 3))).toBe('x');
    expect(removed(sessions.slice(1, 3))).toBeNull();
  });

  it('keeps the sessions a list read again did not change, and the whole list when none changed', () => {
    const old = [session({ id: 'a' }), session({ id: 'b' }), session({ id: 'c' })];
    expect(keepUnchanged(old, old.map((s) => ({ ...s })))).toBe(old);
    const fresh = keepUnchanged(old, [session({ id: 'a' }), session({ id: 'b', activity: 'working' }), session({ id: 'c' })]);
    expect(fresh).not.toBe(old);
    expect(fresh[0]).toBe(old[0]);
    expect(fresh[1]).toMatchObject({ id: 'b', activity: 'working' });
    expect(fresh[2]).toBe(old[2]);
    // Gone, added or in another order: the list as read, unchanged sessions kept.
    const other = keepUnchanged(old, [session({ id: 'c' }), session({ id: 'a' })]);
    expect(other.map((s) => s.id)).toEqual(['c', 'a']);
    expect(other[0]).toBe(old[2]);
  });

  it('offers recent folders first, each once', () => {
    expect(recentFolders([session({ cwd: '/old', startedAt: 1 }), session({ cwd: '/new', startedAt: 5 }), session({ cwd: '/old', startedAt: 3 })])).toEqual(['/new', '/old']);
  });
});

describe('words', () => {
  it("the search bar's count says which match of how many, and when there are more than it highlights", () => {
    expect(matchWords(-1, 0)).toBe('no match');
    expect(matchWords(-1, 1)).toBe('1 match');
    expect(matchWords(2, 7)).toBe('3 of 7');
    expect(matchWords(0, 1_000)).toBe('1 of 1,000+');
  });

  it('badges say the state, with the exit code', () => {
    expect(badge(session({ state: 'exited', lastExit: { code: 1, signal: null, at: 1 } }))).toEqual({ text: 'exited with code 1', tone: 'bad' });
    // An exit nobody asked for needs its person (it counts among those that do): its tone says so.
    expect(badge(session({ state: 'exited', lastExit: { code: 3, signal: null, at: 1 }, needsYou: { source: 'exit', since: 1, detail: 'exited with code 3' } }))).toEqual({ text: 'exited with code 3', tone: 'attention' });
    expect(badge(session({ state: 'exited', lastExit: { code: 0, signal: null, at: 1 }, needsYou: { source: 'exit', since: 1, detail: 'exited' } })).tone).toBe('attention');
    expect(badge(session({ state: 'exited', lastExit: { code: null, signal: 'SIGTERM', at: 1 } })).text).toBe('exited (SIGTERM)');
    // A first prompt not typed yet, until it goes; a question the agent asks meanwhile comes first.
    expect(badge(session({ state: 'running', activity: 'working', promptWaiting: true }))).toEqual({ text: 'prompt waits', tone: 'busy' });
    expect(badge(session({ state: 'running', activity: 'working', promptWaiting: false })).text).toBe('working');
    expect(badge(session({ state: 'running', promptWaiting: true, needsYou: { source: 'screen', since: 1, detail: 'Do you trust this folder?' } })).text).toBe('needs you');
    // Gone with its tmux server: no code to tell, and no "code null".
    expect(badge(session({ state: 'exited', lastExit: { code: null, signal: null, at: 1 } })).text).toBe('exited');
    expect(badge(session({ state: 'resuming' })).text).toBe('resuming');
    expect(badge(session({ needsYou: { source: 'screen', since: 1 } }))).toEqual({ text: 'needs you', tone: 'attention' });
    expect(badge(session({ state: 'exited', lastExit: { code: 1, signal: null, at: 1 }, needsYou: { source: 'exit', since: 1 } })).text).toBe('exited with code 1');
  });

  it('a stopped tab says why, at what time, and what its button will do', () => {
    const events = [event(1, 'created'), event(2, 'stopped', 'stopped by you'), event(3, 'renamed')];
    expect(eventLine(whyStopped(events)!)).toBe('stopped by you at 14:02');
    expect(startWords(session({ resumable: true }))).toBe('Resume conversation');
    expect(startWords(session({ resumable: false }))).toBe('Start clean');
  });

  it('the banner shows the newest dead key until dismissed, or until the session is stopped or started again', () => {
    const events = [event(1, 'resume-failed', 'x', { droppedKeyHint: 'k1234567…' }), event(2, 'started', 'started clean after the old conversation could not be resumed', { fallback: true })];
    expect(lostConversation(events, new Set())?.detail.droppedKeyHint).toBe('k1234567…');
    expect(lostConversation(events, new Set([1]))).toBeNull();
    expect(lostConversation([event(2, 'started')], new Set())).toBeNull();
    expect(lostConversation([...events, event(3, 'stopped', 'stopped by you')], new Set())).toBeNull();
    expect(lostConversation([...events, event(3, 'stopped'), event(4, 'resuming')], new Set())).toBeNull();
    expect(lostConversation([...events, event(3, 'renamed')], new Set())?.id).toBe(1);
  });

  it('a conversation lost while no engine watched: its tab says so, not "stopped by you", and that its next start is clean', () => {
    const lost = event(3, 'resume-failed', 'could not resume the conversation (Claude Code could not find it, and exited with code 1): the next start is clean');
    const events = [event(1, 'stopped', 'stopped by you'), event(2, 'resuming'), lost];
    expect(whyStopped(events)?.id).toBe(3);
    expect(lostWords(lost)).toEqual({ why: 'Claude Code could not find it, and exited with code 1', startedClean: false });
    expect(lostWords(event(4, 'resume-failed', "could not resume the conversation (it is not in Claude Code's files): starting clean"))).toEqual({ why: "it is not in Claude Code's files", startedClean: true });
  });
});

describe('shortcuts', () => {
  const key = (k: string, mods: Partial<{ ctrl: boolean; meta: boolean; shift: boolean; alt: boolean }> = {}) => ({
    key: k,
    ctrlKey: !!mods.ctrl,
    metaKey: !!mods.meta,
    shiftKey: !!mods.shift,
    altKey: !!mods.alt,
  });
  it('maps Ctrl on Linux and Cmd on a Mac', () => {
    expect(shortcut(key('t', { ctrl: true }), false)).toEqual({ kind: 'new-session' });
    expect(shortcut(key('t', { meta: true }), true)).toEqual({ kind: 'new-session' });
    expect(shortcut(key('t', { ctrl: true }), true)).toBeNull();
    expect(shortcut(key('3', { ctrl: true }), false)).toEqual({ kind: 'switch-to', index: 2 });
    expect(shortcut(key('Tab', { ctrl: true, shift: true }), false)).toEqual({ kind: 'previous-tab' });
    expect(shortcut(key('C', { ctrl: true, shift: true }), false)).toEqual({ kind: 'copy' });
    expect(shortcut(key('=', { ctrl: true }), false)).toEqual({ kind: 'zoom', by: 1 });
    expect(shortcut(key('j', { ctrl: true }), false)).toEqual({ kind: 'next-needing' });
    expect(shortcut(key('k', { ctrl: true }), false)).toEqual({ kind: 'palette' });
    expect(shortcut(key('k', { meta: true }), true)).toEqual({ kind: 'palette' });
    expect(shortcut(key('K', { ctrl: true, shift: true }), false)).toEqual({ kind: 'restart-clean' });
    expect(shortcut(key('E', { ctrl: true, shift: true }), false)).toEqual({ kind: 'focus-sessions' });
    expect(keyLabel('sessions', { mac: true, browser: true })).toBe('Cmd+Shift+E');
  });
  it("offers keys a browser leaves to the page for what a browser's tab cannot have, and shows only keys that work where the page runs", () => {
    expect(shortcut({ ...key('n', { alt: true }), code: 'KeyN' }, false)).toEqual({ kind: 'new-session' });
    expect(shortcut({ ...key('˜', { alt: true, ctrl: true }), code: 'KeyN' }, true)).toEqual({ kind: 'new-session' });
    expect(shortcut({ ...key('n', { alt: true }), code: 'KeyN' }, true)).toBeNull();
    expect(shortcut(key('PageDown', { alt: true }), false)).toEqual({ kind: 'next-tab' });
    expect(shortcut(key('PageUp', { alt: true }), false)).toEqual({ kind: 'previous-tab' });
    // AltGr (Ctrl+Alt) types characters on many layouts: never a shortcut off a Mac.
    expect(shortcut({ ...key('n', { alt: true, ctrl: true }), code: 'KeyN' }, false)).toBeNull();
    const browser = { mac: false, browser: true };
    const desktop = { mac: false, browser: false };
    expect(keyLabel('new', browser)).toBe('Alt+N');
    expect(keyLabel('new', desktop)).toBe('Ctrl+T');
    expect(keyLabel('new', { mac: true, browser: true })).toBe('Ctrl+Option+N');
    expect(keyLabel('remove', browser)).toBeUndefined();
    expect(keyLabel('remove', { mac: true, browser: false })).toBe('Cmd+Shift+W');
    expect(keyLabel('switch-3', browser)).toBeUndefined();
    expect(keyLabel('switch-3', desktop)).toBe('Ctrl+3');
    expect(keyLabel('next-tab', browser)).toBe('Alt+PageDown');
    expect(withKeys('New session', 'new', browser)).toBe('New session (Alt+N)');
    expect(withKeys('Remove…', 'remove', browser)).toBe('Remove…');
  });
  it('leaves ordinary keys (and Ctrl-C) to the terminal', () => {
    expect(shortcut(key('c', { ctrl: true }), false)).toBeNull();
    expect(shortcut(key('a'), false)).toBeNull();
    expect(shortcut(key('d', { ctrl: true }), false)).toBeNull();
  });
});

describe('activity and context on tabs', () => {
  it('a running session says whether it is working or idle; needing you wins', () => {
    expect(badge(session({ activity: 'working' }))).toEqual({ text: 'working', tone: 'live' });
    expect(badge(session({ activity: 'idle' }))).toEqual({ text: 'idle', tone: 'live' });
    expect(badge(session({ activity: 'needs-you', needsYou: { source: 'hook', since: 1 } })).text).toBe('needs you');
  });
  it('running times read short', () => {
    expect([45_000, 12 * 60_000, 3 * 3_600_000 + 5 * 60_000, 50 * 3_600_000].map(runningFor)).toEqual(['45s', '12m', '3h 05m', '2d 2h']);
  });
  it('archived sessions leave the strip; the filter keeps those that need you and the one you are on', () => {
    const list = [
      session({ id: 'a' }),
      session({ id: 'b', needsYou: { source: 'screen', since: 1 } }),
      session({ id: 'c', archivedAt: 5, needsYou: { source: 'hook', since: 1 } }),
      session({ id: 'd' }),
    ];
    expect(tabSessions(list, false, 'a').map((s) => s.id)).toEqual(['a', 'b', 'd']);
    expect(tabSessions(list, true, 'a').map((s) => s.id)).toEqual(['a', 'b']);
    expect(tabSessions(list, true, null).map((s) => s.id)).toEqual(['b']);
  });
  it("the strip and the next tab's key go in the sidebar's order: by machine, then folder, then the person's order; a tab that leaves gives its place to the one after it there", () => {
    const list = [
      session({ id: 'a', cwd: '/src/billing' }),
      session({ id: 'b', cwd: '/src/web' }),
      session({ id: 'devbox/c', cwd: '/src/billing' }),
      session({ id: 'd', cwd: '/src/billing' }),
      session({ id: 'e', cwd: '/src/web' }),
    ];
    expect(tabSessions(list, false, 'a').map((s) => s.id)).toEqual(['a', 'd', 'b', 'e', 'devbox/c']);
    expect(besideTab(tabSessions(list, false, 'd'), 'd')).toEqual(['b', 'a']);
    // d is archived while shown: b, after it in the strip, is shown (not e, after it in the list).
    expect(applyChange({ sessions: list, activeId: 'd' }, { kind: 'updated', session: session({ id: 'd', cwd: '/src/billing', archivedAt: 9 }) }).activeId).toBe('b');
    expect(applyChange({ sessions: list, activeId: 'devbox/c' }, { kind: 'removed', session: list[2]! }).activeId).toBe('e');
  });
  it("shows a CLI label's invisible controls, never obeys them", () => {
    useSessions.getState().setClis([{ name: 'bidi', label: 'Bidi\u202eAgent', color: '#000000', installed: true, path: '/bin/bidi', resumable: true, boxed: false, answers: null }]);
    expect(useSessions.getState().clis[0]!.label).toBe('Bidi⟨U+202E⟩Agent');
  });
  it('shows the neighbour of a session removed while shown without the focus, until one is picked', () => {
    useSessions.setState({ sessions: [session({ id: 'a' }), session({ id: 'b', name: 'gone' })], activeId: 'b', unfocused: null, wentAway: null });
    useSessions.getState().apply({ kind: 'removed', session: session({ id: 'b', name: 'gone' }) });
    expect(useSessions.getState()).toMatchObject({ activeId: 'a', unfocused: 'a', wentAway: { name: 'gone', how: 'removed' } });
    useSessions.getState().activate('a');
    expect(useSessions.getState()).toMatchObject({ activeId: 'a', unfocused: null, wentAway: null });
  });
  it('a reload shows the tab shown before it, while its session is listed and not archived', () => {
    const stored = new Map<string, string>();
    vi.stubGlobal('sessionStorage', { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => stored.set(k, v) });
    try {
      const list = [session({ id: 'a' }), session({ id: 'b' }), session({ id: 'c' })];
      const reload = (sessions: SessionView[]) => {
        useSessions.setState({ sessions: [], activeId: null, loaded: false, unfocused: null, wentAway: null, awaiting: null });
        useSessions.getState().replace(sessions);
        return useSessions.getState().activeId;
      };
      expect(reload(list)).toBe('a');
      useSessions.getState().activate('b');
      expect(reload(list)).toBe('b');
      // A neighbour shown for one archived is the one a reload shows.
      useSessions.getState().apply({ kind: 'updated', session: session({ id: 'b', archivedAt: 9 }) });
      expect(useSessions.getState().activeId).toBe('c');
      expect(reload([list[0]!, session({ id: 'b', archivedAt: 9 }), list[2]!])).toBe('c');
      // Gone, or archived since: the first tab.
      expect(reload([list[0]!, list[1]!])).toBe('a');
      stored.set('corral.shown', 'b');
      expect(reload([list[0]!, session({ id: 'b', archivedAt: 9 })])).toBe('a');
      // A remote host's tab is shown when its host's list comes (after this machine's), unless one was picked.
      stored.set('corral.shown', 'devbox/x');
      expect(reload(list)).toBe('a');
      useSessions.getState().replace([session({ id: 'y' })], 'other');
      expect(useSessions.getState().activeId).toBe('a');
      useSessions.getState().replace([session({ id: 'devbox/x' })], 'devbox');
      expect(useSessions.getState().activeId).toBe('devbox/x');
      expect(stored.get('corral.shown')).toBe('devbox/x');
      expect(reload(list)).toBe('a');
      useSessions.getState().activate('c');
      useSessions.getState().replace([session({ id: 'devbox/x' })], 'devbox');
      expect(useSessions.getState().activeId).toBe('c');
      // A list read again (a reconnect) keeps the tab shown, whatever was stored.
      useSessions.getState().activate(null);
      stored.set('corral.shown', 'b');
      useSessions.getState().replace(list);
      expect(useSessions.getState().activeId).toBe('a');
    } finally {
      vi.unstubAllGlobals();
    }
  });
  it("takes the events hello's list, and never a list read apart from it once that came (it may be older than a change applied)", async () => {
    const reconnects: ((sessions?: SessionView[]) => void)[] = [];
    const changes: ((change: SessionChange) => void)[] = [];
    let answer: (list: { sessions: SessionView[] }) => void = () => {};
    const api = {
      listSessions: () => new Promise<{ sessions: SessionView[] }>((resolve) => (answer = resolve)),
      listClis: async () => ({ clis: [] }),
      onSessionChange: (l: (change: SessionChange) => void) => (changes.push(l), () => {}),
      onReconnect: (l: (sessions?: SessionView[]) => void) => (reconnects.push(l), () => {}),
    } as unknown as Parameters<typeof syncSessions>[0];
    useSessions.setState({ sessions: [], activeId: null, loaded: false, unfocused: null, wentAway: null, awaiting: null });
    const stop = syncSessions(api);
    // The hello says 'first', then 'long' is made: 'first' is shown, as the list's first.
    reconnects.forEach((l) => l([session({ id: 'first' })]));
    changes.forEach((l) => l({ kind: 'added', session: session({ id: 'long' }) }));
    expect(useSessions.getState()).toMatchObject({ activeId: 'first', wentAway: null });
    // The page's own first list, read before either was made, comes last: it changes nothing.
    answer({ sessions: [] });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(useSessions.getState().sessions.map((x) => x.id)).toEqual(['first', 'long']);
    expect(useSessions.getState()).toMatchObject({ activeId: 'first', wentAway: null });
    stop();
  });
  it('archiving the active tab moves to its neighbour', () => {
    const sessions = [session({ id: 'a' }), session({ id: 'b' }), session({ id: 'c' })];
    expect(applyChange({ sessions, activeId: 'b' }, { kind: 'updated', session: session({ id: 'b', archivedAt: 9 }) }).activeId).toBe('c');
    expect(applyChange({ sessions, activeId: 'c' }, { kind: 'updated', session: session({ id: 'c', archivedAt: 9 }) }).activeId).toBe('b');
    expect(applyChange({ sessions, activeId: 'a' }, { kind: 'updated', session: session({ id: 'c', archivedAt: 9 }) }).activeId).toBe('a');
  });
});

describe('paths printed in a terminal', () => {
  const texts = (line: string) => findPaths(line).map((p) => p.text);
  it('finds relative, dotted, absolute and line-numbered paths where they start', () => {
    expect(findPaths('error in src/app.ts:42:7 here')).toEqual([{ start: 9, text: 'src/app.ts:42:7' }]);
    expect(texts('see ./docs/x.md.')).toEqual(['./docs/x.md']);
    expect(texts('wrote /tmp/corral-run/out.log, and ../up/a')).toEqual(['/tmp/corral-run/out.log', '../up/a']);
    expect(texts('edit notes.md:12 and package.json')).toEqual(['notes.md:12', 'package.json']);
    expect(texts('cat .env please')).toEqual(['.env']);
    expect(texts('("src/main.rs")')).toEqual(['src/main.rs']);
  });
  it('leaves prose, versions and URLs alone', () => {
    expect(texts('and/or e.g. v1.2.3 done. ... https://example.com/a/b.md 3/4')).toEqual([]);
  });
});

describe('the command palette', () => {
  const clis = [{ name: 'faker', label: 'Faker', color: '#000000', installed: true, path: '/bin/faker', resumable: true, boxed: false, answers: null }];
  const list = [
    session({ id: 'a', name: 'api', cwd: '/w/api', git: { branch: 'feature/login', dirty: true } }),
    session({ id: 'b', name: 'docs', cwd: '/w/docs', state: 'stopped', activity: null }),
    session({ id: 'c', name: 'old', cwd: '/w/old', archivedAt: 3, state: 'stopped', activity: null }),
  ];
  it('finds sessions by name, CLI, folder or branch; archived ones to restore', () => {
    const items = paletteItems(list, clis, 'a', { needsFilter: false });
    expect(matchPalette(items, 'login').map((i) => i.title)).toEqual(['Go to api']);
    expect(matchPalette(items, 'w/docs').map((i) => i.title)).toEqual(['Go to docs']);
    expect(matchPalette(items, 'faker old').map((i) => i.title)).toEqual(['Restore old']);
    // Sessions come before actions that happen to match ("lets its conversation go").
    expect(matchPalette(items, 'go').map((i) => i.command.kind)).toEqual(['go', 'go', 'action']);
    // A word of an action's title beats the same word in a session's folder.
    const news = paletteItems([session({ id: 'n', name: 'web', cwd: '/w/newsletter' }), ...list], clis, 'a', { needsFilter: false });
    expect(matchPalette(news, 'new').map((i) => i.title).slice(0, 2)).toEqual(['New session…', 'Go to web']);
  });
  it('finds by letters in order within a word, better matches first, and shows state and keys', () => {
    const items = paletteItems(
      [...list, session({ id: 'c', name: 'billing-service', cwd: '/w/billing' }), session({ id: 'd', name: 'blog', cwd: '/w/blog' })],
      clis,
      'a',
      { needsFilter: false },
    );
    expect(matchPalette(items, 'blng').map((i) => i.title)).toEqual(['Go to billing-service']);
    // A word's start beats letters scattered through another word.
    expect(matchPalette(items, 'bl').map((i) => i.title).slice(0, 2)).toEqual(['Go to blog', 'Go to billing-service']);
    expect(matchPalette(items, 'xyzzy')).toEqual([]);
    // Letters in order across a name's words, from the start of one, when nothing better is found:
    // after every better match.
    expect(matchPalette(items, 'bilser').map((i) => i.title)).toEqual(['Go to billing-service']);
    expect(matchPalette(items, 'blgsrv').map((i) => i.title)).toEqual(['Go to billing-service']);
    expect(matchPalette(items, 'lgsrv')).toEqual([]);
    const named = paletteItems([session({ id: 'e', name: 'tilde-one', cwd: '/w/t' }), session({ id: 'f', name: 'tldone', cwd: '/w/u' })], clis, 'a', { needsFilter: false });
    expect(matchPalette(named, 'tldone').map((i) => i.title)).toEqual(['Go to tldone', 'Go to tilde-one']);
    const go = items.find((i) => i.key === 'go-c')!;
    expect(go.state).toBe(badge(session({ id: 'c' })).text);
    expect(items.find((i) => i.key === 'stop')!.keys).toBe('Ctrl+Shift+S');
    expect(paletteItems(list, clis, 'a', { needsFilter: false, mac: true }).find((i) => i.key === 'new')!.keys).toBe('Cmd+T');
  });

  it('offers the actions that fit the active session', () => {
    const running = paletteItems(list, clis, 'a', { needsFilter: false }).map((i) => i.title);
    expect(running).toEqual(expect.arrayContaining(['Stop api', 'Archive api', 'Rename api…', 'New session…', 'Next session that needs you']));
    expect(running).not.toContain('Resume api');
    const stopped = paletteItems(list, clis, 'b', { needsFilter: true }).map((i) => i.title);
    expect(stopped).toEqual(expect.arrayContaining(['Resume docs', 'Show all sessions']));
    expect(matchPalette(paletteItems(list, clis, 'a', { needsFilter: false }), 'zzz')).toEqual([]);
  });
});

describe('the folder picker', () => {
  const listed = { path: '/home/me', parent: '/home', folders: ['api', 'App', 'web'], truncated: false };
  it('lists the folder typed so far', () => {
    expect(folderToList('/home/me/a')).toBe('/home/me/');
    expect(folderToList('/home/me/')).toBe('/home/me/');
    expect(folderToList('~')).toBe('~');
    expect(folderToList('~/pro')).toBe('~/');
    expect(folderToList('rel/path')).toBeNull();
    expect(folderToList('')).toBeNull();
  });
  it("offers the listed folder's children that match, then recent folders, written as typed (absolute, or from ~)", () => {
    expect(folderSuggestions('/home/me/a', listed, ['/w/other'])).toEqual(['/home/me/api', '/home/me/App']);
    expect(folderSuggestions('~/', listed, ['/w/other', '/home/me/web/site'])).toEqual(['~/api', '~/App', '~/web', '~/web/site']);
    expect(folderSuggestions('~', listed, [])).toEqual(['~/api', '~/App', '~/web']);
    const inside = { path: '/home/me/work', parent: '/home/me', folders: ['corral', 'other'], truncated: false };
    expect(folderSuggestions('~/work/co', inside, ['/home/me/work/corral/sub', '/home/meta/work/co'])).toEqual(['~/work/corral', '~/work/corral/sub']);
    expect(folderSuggestions('', null, ['/w/a', '/w/b'])).toEqual(['/w/a', '/w/b']);
    expect(folderSuggestions('/', { path: '/', parent: null, folders: ['usr'], truncated: false }, [])).toEqual(['/usr']);
  });
});

describe('text from outside', () => {
  it('shows the controls that would reorder or hide what is shown', () => {
    expect(visible('report\u202efdp.sh')).toBe('report⟨U+202E⟩fdp.sh');
    expect(visible('feature\u2066x\u2069')).toBe('feature⟨U+2066⟩x⟨U+2069⟩');
    expect(visible('bell\u0007')).toBe('bell⟨U+0007⟩');
    expect(visible('naïve/ветка/分支')).toBe('naïve/ветка/分支');
    // Drawn as nothing, so "billing-task-1" twice: each shown.
    expect(visible('billing\u2060-task-1')).toBe('billing⟨U+2060⟩-task-1');
    expect(visible('\ufeffa\u200bb')).toBe('⟨U+FEFF⟩a⟨U+200B⟩b');
    expect(visible('\u{1f469}\u200d\u{1f4bb}')).toBe('\u{1f469}\u200d\u{1f4bb}');
    // A variation selector is shown where it picks nothing; kept where it picks a form.
    expect(visible('s01-busy\ufe00')).toBe('s01-busy⟨U+FE00⟩');
    expect(visible('a\u2800b')).toBe('a⟨U+2800⟩b');
    expect(visible('\u2714\ufe0f 1\ufe0f\u20e3 \u845b\u{e0100}')).toBe('\u2714\ufe0f 1\ufe0f\u20e3 \u845b\u{e0100}');
  });

  it('passes over text without a look only when it holds none of them', () => {
    // visible() skips the full pattern when the one plain class finds nothing: that class must
    // hold every character the pattern can find, whatever plane it is in. And every format
    // character is one of them, but for the prepended marks that draw a sign and the zero-width
    // joiner (seen where it joins an emoji).
    const shownFormat = /[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]|\u200d/u;
    const missed: string[] = [];
    const unnamed: string[] = [];
    for (let point = 0; point <= 0x10ffff; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const char = String.fromCodePoint(point);
      HIDDEN.lastIndex = 0;
      const hidden = HIDDEN.test(char);
      if (hidden && !MAYBE_HIDDEN.test(char)) missed.push(codePoint(char));
      if (!hidden && /\p{Cf}/u.test(char) && !shownFormat.test(char)) unnamed.push(codePoint(char));
    }
    expect(missed).toEqual([]);
    expect(unnamed).toEqual([]);
    HIDDEN.lastIndex = 0;
    expect(HIDDEN.test('a\u200db')).toBe(true);
    expect(MAYBE_HIDDEN.test('billing-task-1 naïve 分支 \u{1f469}')).toBe(false);
  });
});

describe("a session's link", () => {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  it('is corral://session/KEY in the desktop app', () => {
    expect(sessionLink(id, true)).toBe(`corral://session/${id}`);
    expect(sessionLink(`devbox/${id}`, true)).toBe(`corral://session/devbox/${id}`);
  });
  it("is read from a page's fragment strictly: a session id, or a host and one, and nothing else", () => {
    expect(sessionInFragment(`#session=${id}`)).toEqual({ key: id });
    expect(sessionInFragment(`#code=abc&session=${id}`)).toEqual({ key: id });
    expect(sessionInFragment(`#session=devbox%2F${id}`)).toEqual({ key: `devbox/${id}` });
    expect(sessionInFragment(`#session=local/${id}`)).toEqual({ key: id });
    expect(sessionInFragment('#code=abc')).toBeUndefined();
    expect(sessionInFragment('')).toBeUndefined();
    for (const bad of ['', 'x', `${id}x`, `a/b/${id}`, `Dev_Box/${id}`, `../${id}`, id.toUpperCase(), `devbox/${id}/`]) {
      expect(sessionInFragment(`#session=${encodeURIComponent(bad)}`), bad).toHaveProperty('error');
    }
  });
});

describe('the tabs beside the shown one', () => {
  it('are the next and the previous running tab, wrapping round, the next first, never the shown one', () => {
    const tabs = ['a', 'b', 'c', 'd'].map((id) => sessionView({ id }));
    expect(besideTab(tabs, 'b')).toEqual(['c', 'a']);
    expect(besideTab(tabs, 'a')).toEqual(['b', 'd']);
    expect(besideTab(tabs, 'd')).toEqual(['a', 'c']);
    expect(besideTab(tabs.slice(0, 2), 'a')).toEqual(['b']);
    expect(besideTab(tabs.slice(0, 1), 'a')).toEqual([]);
    expect(besideTab(tabs, null)).toEqual([]);
    expect(besideTab([tabs[0]!, sessionView({ id: 'b', state: 'stopped' }), tabs[2]!], 'a')).toEqual(['c']);
  });
});

describe('web links from an agent', () => {
  it('open only as http(s)', () => {
    expect(webLink('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(webLink('HTTP://Example.com')).toBe('http://example.com/');
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'corral://session/x', 'data:text/html,x', 'vscode://open', 'not a url', '']) expect(webLink(bad), bad).toBeNull();
  });
});

describe('the terminal colours', () => {
  it('every ANSI colour can be read on its theme background (WCAG contrast at least 4.5)', () => {
    for (const [name, theme] of Object.entries(THEMES)) {
      const weak = ANSI_NAMES.map((c) => [c, contrast(theme[c]!, theme.background!)] as const).filter(([, ratio]) => ratio < MIN_CONTRAST);
      expect(weak, name).toEqual([]);
      expect(contrast(theme.foreground!, theme.background!), name).toBeGreaterThanOrEqual(7);
    }
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#777777')).toBe(1);
  });
});

describe("the palette's marks", () => {
  it('mark where each word of the query is found in the title: a word start, inside, or letters in order', () => {
    expect(matchedRanges('Go to billing-api', 'blng')).toEqual([[6, 7], [8, 9], [11, 13]]);
    expect(matchedRanges('Go to billing-api', 'go api')).toEqual([[0, 2], [14, 17]]);
    expect(matchedRanges('Go to billing-api', 'lin')).toEqual([[9, 12]]);
    expect(matchedRanges('New session…', 'folder')).toEqual([]);
    // Across words, from the start of one.
    expect(matchedRanges('Go to s09-renamed', 'S09ren')).toEqual([[6, 9], [10, 13]]);
  });
});
