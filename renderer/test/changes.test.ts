// The review's words and picks without a browser: a worktree's mark, the language of a file,
// the lines a selection of a diff covers, and what a merge did or a discard loses.

import { describe, expect, it } from 'vitest';
import type { WorktreeView } from '../../daemon/contract/session';
import { highlighterFor } from '../lib/highlight';
import { kindMark, landedWords, languageOf, lossWords, selectedLines, whereWords, worktreeMark, worktreeWords, type DiffLine } from '../lib/changes';
import { shortcut } from '../lib/keys';
import { matchPalette, paletteItems } from '../lib/palette';
import { sessionView } from './fixtures';

const tree = (over: Partial<WorktreeView> = {}): WorktreeView => ({
  path: '/home/me/.corral/worktrees/app-1234/corral/fix',
  repo: '/home/me/app',
  branch: 'corral/fix',
  base: 'main',
  state: { ahead: 2, behind: 1, uncommitted: 3, changedFiles: 4 },
  missing: false,
  settingUp: false,
  ...over,
});

describe("a session's worktree mark", () => {
  it('says the branch, ↑ahead ↓behind and the changed files, leaving out what is zero', () => {
    expect(worktreeMark(tree())).toMatchObject({ branch: 'corral/fix', status: '↑2 ↓1 · 4 files', tone: 'normal' });
    expect(worktreeMark(tree({ state: { ahead: 0, behind: 0, uncommitted: 0, changedFiles: 1 } })).status).toBe('· 1 file');
    expect(worktreeMark(tree({ state: { ahead: 0, behind: 0, uncommitted: 0, changedFiles: 0 } })).status).toBe('');
    expect(worktreeMark(tree()).title).toContain('2 commits ahead of main, 1 behind, 4 changed files, 3 uncommitted');
    expect(worktreeWords(tree())).toBe('worktree corral/fix, 2 ahead, 1 behind, 4 changed files');
  });

  it('says "setting up" while the setup runs, and "worktree deleted" above all else', () => {
    expect(worktreeMark(tree({ settingUp: true }))).toMatchObject({ status: 'setting up', tone: 'busy' });
    expect(worktreeMark(tree({ settingUp: true, missing: true }))).toMatchObject({ status: 'worktree deleted', tone: 'bad' });
    expect(worktreeWords(tree({ missing: true }))).toBe('worktree corral/fix, worktree deleted');
    expect(worktreeMark(tree({ state: null }))).toMatchObject({ status: '', tone: 'normal' });
  });

  it('shows a branch that would reorder its text as what it is', () => {
    expect(worktreeMark(tree({ branch: 'fix\u202Egnp.sh' })).branch).toBe('fix⟨U+202E⟩gnp.sh');
  });
});

describe('a file in the diff', () => {
  it('is highlighted in its language, by extension or name', () => {
    expect(languageOf('src/app.tsx')).toBe('tsx');
    expect(languageOf('lib/x.MJS')).toBe('javascript');
    expect(languageOf('deploy/Dockerfile')).toBe('docker');
    expect(languageOf('README')).toBeNull();
    expect(languageOf('data.bin')).toBeNull();
  });

  it("is highlighted with its language's grammar, loaded when first asked for", async () => {
    const highlighter = await highlighterFor('typescript');
    const nodes = highlighter!.highlight('const a: number = 1;', 'typescript') as { type: string; properties?: { className?: string[] } }[];
    expect(nodes.find((n) => n.type === 'element')?.properties?.className).toEqual(['token', 'keyword']);
  });

  it("has git's letter and a word for its kind", () => {
    expect(kindMark('untracked')).toEqual({ letter: 'U', word: 'new, not yet added to git' });
    expect(kindMark('deleted').letter).toBe('D');
  });
});

describe('a selection of lines', () => {
  // @@ -1,4 +1,4 @@: one, -two, +TWO, +2b, three, -four
  const lines: DiffLine[] = [
    { type: 'normal', oldLine: 1, newLine: 1 },
    { type: 'delete', oldLine: 2, newLine: null },
    { type: 'insert', oldLine: null, newLine: 2 },
    { type: 'insert', oldLine: null, newLine: 3 },
    { type: 'normal', oldLine: 3, newLine: 4 },
    { type: 'delete', oldLine: 4, newLine: null },
  ];

  it('covers lines of the file as it is now, in either order of clicks', () => {
    expect(selectedLines(lines, 2, 4)).toEqual({ startLine: 2, endLine: 4 });
    expect(selectedLines(lines, 4, 2)).toEqual({ startLine: 2, endLine: 4 });
    expect(selectedLines(lines, 1, 2)).toEqual({ startLine: 2, endLine: 2 });
    expect(selectedLines(lines, 0, 0)).toEqual({ startLine: 1, endLine: 1 });
  });

  it('covers lines of the file as it was when only removed lines are chosen', () => {
    expect(selectedLines(lines, 1, 1)).toEqual({ startLine: 2, endLine: 2 });
    expect(selectedLines(lines, 5, 5)).toEqual({ startLine: 4, endLine: 4 });
  });

  it('is named as the agent is told it', () => {
    expect(whereWords({ path: 'src/app.js', startLine: 2, endLine: 2 })).toBe('src/app.js line 2');
    expect(whereWords({ path: 'README.md', startLine: 1, endLine: 3 })).toBe('README.md lines 1-3');
  });
});

describe('landing and discarding', () => {
  it('says what a merge did', () => {
    expect(landedWords({ how: 'fast-forward', commit: '0123456789abcdef' }, 'corral/fix', 'main')).toBe('Merged: main moved forward to corral/fix (fast-forward, 01234567).');
    expect(landedWords({ how: 'merge-commit', commit: 'fedcba9876543210' }, 'corral/fix', 'main')).toBe('Merged: corral/fix into main with a merge commit (fedcba98).');
    expect(landedWords({ how: 'up-to-date', commit: 'fedcba9876543210' }, 'corral/fix', 'main')).toBe('Nothing to merge: main already has everything on corral/fix.');
  });

  it('says what a removal of the worktree loses', () => {
    expect(lossWords(tree(), true)).toBe('its folder /home/me/.corral/worktrees/app-1234/corral/fix, 3 uncommitted changes and the branch corral/fix with 2 commits not on main');
    expect(lossWords(tree(), false)).toBe('its folder /home/me/.corral/worktrees/app-1234/corral/fix and 3 uncommitted changes');
    expect(lossWords(tree({ state: null }), false)).toBe('its folder /home/me/.corral/worktrees/app-1234/corral/fix');
  });
});

describe('opening the changes', () => {
  it('is Ctrl+Shift+D, and in the palette for the active session', () => {
    expect(shortcut({ key: 'D', ctrlKey: true, metaKey: false, shiftKey: true, altKey: false }, false)).toEqual({ kind: 'changes' });
    expect(shortcut({ key: 'd', ctrlKey: false, metaKey: true, shiftKey: true, altKey: false }, true)).toEqual({ kind: 'changes' });
    const session = sessionView({ name: 'fixer', cli: 'claude', cwd: '/w', worktree: tree() });
    const [item] = matchPalette(paletteItems([session], [], 'a', { needsFilter: false }), 'review');
    expect(item).toMatchObject({ title: 'Review changes of fixer', detail: 'its worktree against main', keys: 'Ctrl+Shift+D', command: { kind: 'action', action: { kind: 'changes' } } });
    // A folder's session: once its git is known; outside a repository, never.
    const inRepo = sessionView({ name: 'plain', cwd: '/w', git: { branch: 'main', dirty: false } });
    expect(matchPalette(paletteItems([inRepo], [], inRepo.id, { needsFilter: false }), 'review')[0]).toMatchObject({ title: 'Review changes of plain', detail: 'what its folder has not committed' });
    const outside = sessionView({ name: 'plain', cwd: '/w', git: null });
    expect(matchPalette(paletteItems([outside], [], outside.id, { needsFilter: false }), 'review changes')).toEqual([]);
  });
});
