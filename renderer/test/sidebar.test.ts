// The sidebar's list without a browser: groups by folder, their order and counts, the filter,
// which rows may answer, and where a dragged row lands.

import { describe, expect, it } from 'vitest';
import type { CliView, SessionView } from '../../daemon/contract/session';
import { answersFor, dropOrder, dropped, groupByHost, groupSessions, shortName } from '../lib/sidebar';
import { shortcut } from '../lib/keys';
import { matchPalette, paletteItems } from '../lib/palette';
import { sessionView } from './fixtures';

const s = (id: string, cwd: string, over: Partial<SessionView> = {}) => sessionView({ id, name: id, cli: 'claude', cwd, ...over });
const git = { branch: 'main', dirty: false };
const asking = { source: 'screen' as const, since: 1, detail: 'Do you want to proceed?' };
const ids = (groups: ReturnType<typeof groupSessions>) => groups.map((g) => [g.folder, g.sessions.map((x) => x.id)]);

describe('the sidebar groups', () => {
  it('are folders, in the order of their first session, each keeping its sessions in the given order', () => {
    const sessions = [s('a', '/w/api'), s('b', '/w/web'), s('c', '/w/api'), s('d', '/w/docs/'), s('e', '/w/web')];
    expect(ids(groupSessions(sessions, false, null))).toEqual([
      ['/w/api', ['a', 'c']],
      ['/w/web', ['b', 'e']],
      ['/w/docs', ['d']],
    ]);
  });

  it('put a session in a folder of a repository with the session at the folder that holds it', () => {
    const sessions = [s('sub', '/w/app/packages/ui', { git }), s('root', '/w/app', { git }), s('plain', '/w/app/notes'), s('other', '/w/apple', { git })];
    expect(ids(groupSessions(sessions, false, null))).toEqual([
      ['/w/app', ['sub', 'root']],
      // Outside a repository a folder is its own group; a name that only starts the same is another folder.
      ['/w/app/notes', ['plain']],
      ['/w/apple', ['other']],
    ]);
  });

  it("put a session in a worktree of its own with its repository's, not in the worktree's folder", () => {
    const worktree = (path: string) => ({ path, repo: '/w/app', branch: 'corral/x', base: 'main', state: null, missing: false, settingUp: false });
    const sessions = [s('root', '/w/app', { git }), s('wt', '/home/me/.corral/worktrees/app-1/corral/x', { git, worktree: worktree('/home/me/.corral/worktrees/app-1/corral/x') }), s('wt-sub', '/home/me/.corral/worktrees/app-2/corral/y/src', { git, worktree: worktree('/home/me/.corral/worktrees/app-2/corral/y') })];
    expect(ids(groupSessions(sessions, false, null))).toEqual([['/w/app', ['root', 'wt', 'wt-sub']]]);
    // With no session at the repository itself, too.
    expect(ids(groupSessions(sessions.slice(1), false, null))).toEqual([['/w/app', ['wt', 'wt-sub']]]);
  });

  it('leave archived sessions out, and count sessions and those that need you', () => {
    const sessions = [s('a', '/w/api', { needsYou: asking }), s('b', '/w/api', { archivedAt: 5, needsYou: asking }), s('c', '/w/api', { state: 'exited', needsYou: { source: 'exit', since: 1 } }), s('d', '/w/api')];
    const [group] = groupSessions(sessions, false, null);
    expect(group).toMatchObject({ total: 3, needing: 2 });
    expect(group!.sessions.map((x) => x.id)).toEqual(['a', 'c', 'd']);
  });

  it('with the needs-you filter show only those that need you and the active one, and drop empty groups; counts stay whole', () => {
    const sessions = [s('a', '/w/api'), s('b', '/w/api', { needsYou: asking }), s('c', '/w/web'), s('d', '/w/docs')];
    const groups = groupSessions(sessions, true, 'd');
    expect(ids(groups)).toEqual([
      ['/w/api', ['b']],
      ['/w/docs', ['d']],
    ]);
    expect(groups[0]).toMatchObject({ total: 2, needing: 1 });
  });

  it('are named by the folder, with its parent where two folders end alike', () => {
    expect(shortName('/w/a/api', ['/w/a/api', '/w/web'])).toBe('api');
    expect(shortName('/w/a/api', ['/w/a/api', '/x/b/api'])).toBe('a/api');
    expect(shortName('/', ['/'])).toBe('/');
    expect(groupSessions([s('a', '/w/one/api'), s('b', '/w/two/api')], false, null).map((g) => g.name)).toEqual(['one/api', 'two/api']);
  });
});

describe('answering from the sidebar', () => {
  const cli = (name: string, answers: CliView['answers']): CliView => ({ name, label: name, color: '#000000', installed: true, path: `/bin/${name}`, resumable: true, boxed: false, answers });
  const clis = [cli('claude', { approve: '1', deny: '\u001b' }), cli('shell', null)];

  it("is offered for a question seen on the screen or told by a hook, with the CLI's own keys", () => {
    expect(answersFor(s('a', '/w', { needsYou: asking }), clis)).toEqual({ approve: '1', deny: '\u001b' });
    expect(answersFor(s('a', '/w', { needsYou: { source: 'hook', since: 1 } }), clis)).toEqual({ approve: '1', deny: '\u001b' });
    // A screen to set up (trust, sign-in) has a menu of its own: its keys are typed in the terminal.
    expect(answersFor(s('a', '/w', { needsYou: { ...asking, setup: true } }), clis)).toBeNull();
  });

  it('is not offered after an exit, without a question, or for a CLI with no answers', () => {
    expect(answersFor(s('a', '/w', { state: 'exited', needsYou: { source: 'exit', since: 1 } }), clis)).toBeNull();
    expect(answersFor(s('a', '/w'), clis)).toBeNull();
    expect(answersFor(s('a', '/w', { cli: 'shell', needsYou: asking }), clis)).toBeNull();
    expect(answersFor(s('a', '/w', { cli: 'unknown', needsYou: asking }), clis)).toBeNull();
  });
});

describe('dragging in the sidebar', () => {
  const sessions = [s('a', '/w/api'), s('x', '/w/web'), s('b', '/w/api'), s('c', '/w/api')];
  const groups = groupSessions(sessions, false, null);

  it('puts a row before or after another of its group, in the order of every session', () => {
    expect(dropOrder(sessions, groups, 'c', 'a', false)).toEqual(['c', 'a', 'x', 'b']);
    expect(dropOrder(sessions, groups, 'a', 'c', true)).toEqual(['x', 'b', 'c', 'a']);
    expect(dropOrder(sessions, groups, 'a', 'b', false)).toEqual(['x', 'a', 'b', 'c']);
  });

  it('refuses a drop on another group or on itself', () => {
    expect(dropOrder(sessions, groups, 'a', 'x', false)).toBeNull();
    expect(dropOrder(sessions, groups, 'a', 'a', true)).toBeNull();
    expect(dropped(sessions, groups, 'a', 'x', false)).toBeNull();
  });

  it("a host's session moves to its place among every session, and its daemon is told its own sessions' order", () => {
    const all = [...sessions, s('devbox/r1', '/src'), s('devbox/r2', '/src')];
    const withHosts = groupByHost(all, false, null, []).flatMap((machine) => machine.groups);
    expect(dropped(all, withHosts, 'devbox/r1', 'devbox/r2', true)).toEqual({ at: 5, machine: ['devbox/r2', 'devbox/r1'] });
    expect(dropped(all, withHosts, 'c', 'a', false)).toEqual({ at: 0, machine: ['c', 'a', 'x', 'b'] });
  });
});

describe('the sidebar shortcut', () => {
  it('Ctrl+Shift+B (Cmd on a Mac) shows or hides it; Ctrl+B stays the terminal’s', () => {
    const key = { ctrlKey: false, metaKey: false, shiftKey: false, altKey: false };
    expect(shortcut({ ...key, key: 'B', ctrlKey: true, shiftKey: true }, false)).toEqual({ kind: 'toggle-sidebar' });
    expect(shortcut({ ...key, key: 'B', metaKey: true, shiftKey: true }, true)).toEqual({ kind: 'toggle-sidebar' });
    expect(shortcut({ ...key, key: 'b', ctrlKey: true }, false)).toBeNull();
  });

  it('is in the palette too, with its keys', () => {
    const [item] = matchPalette(paletteItems([], [], null, { needsFilter: false }), 'sidebar');
    expect(item).toMatchObject({ title: 'Show or hide the sidebar', keys: 'Ctrl+Shift+B', command: { kind: 'action', action: { kind: 'toggle-sidebar' } } });
  });
});
