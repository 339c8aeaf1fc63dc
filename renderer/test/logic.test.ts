// The renderer's logic, without a browser: the session store, the words, the shortcuts.

import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionView } from '../../daemon/contract/session';
import { shortcut } from '../lib/keys';
import { badge, eventLine, lostConversation, startWords, whyStopped } from '../lib/words';
import { applyChange, recentFolders } from '../state/sessions';

const session = (over: Partial<SessionView> = {}): SessionView => ({
  id: 'a',
  name: 'a',
  cli: 'faker',
  cwd: '/w/a',
  backend: 'tmux',
  state: 'running',
  resumable: true,
  createdAt: 1,
  startedAt: 1,
  lastActivityAt: null,
  lastExit: null,
  activity: 'idle',
  git: null,
  archivedAt: null,
  needsYou: null,
  ...over,
});
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

  it('offers recent folders first, each once', () => {
    expect(recentFolders([session({ cwd: '/old', startedAt: 1 }), session({ cwd: '/new', startedAt: 5 }), session({ cwd: '/old', startedAt: 3 })])).toEqual(['/new', '/old']);
  });
});

describe('words', () => {
  it('badges say the state, with the exit code', () => {
    expect(badge(session({ state: 'exited', lastExit: { code: 1, signal: null, at: 1 } }))).toEqual({ text: 'exited with code 1', tone: 'bad' });
    expect(badge(session({ state: 'exited', lastExit: { code: null, signal: 'SIGTERM', at: 1 } })).text).toBe('exited (SIGTERM)');
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

  it('the banner shows the newest dead key until dismissed', () => {
    const events = [event(1, 'resume-failed', 'x', { droppedKey: 'k1' }), event(2, 'started')];
    expect(lostConversation(events, new Set())?.detail.droppedKey).toBe('k1');
    expect(lostConversation(events, new Set([1]))).toBeNull();
    expect(lostConversation([event(2, 'started')], new Set())).toBeNull();
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
  });
  it('leaves ordinary keys (and Ctrl-C) to the terminal', () => {
    expect(shortcut(key('c', { ctrl: true }), false)).toBeNull();
    expect(shortcut(key('a'), false)).toBeNull();
    expect(shortcut(key('d', { ctrl: true }), false)).toBeNull();
  });
});
