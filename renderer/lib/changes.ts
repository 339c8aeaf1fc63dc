// What the review of a session's changes says and picks, pure: its worktree in a few
// characters, the language of a file, the lines a selection of the diff covers, and the words
// for a merge and a discard.

import type { ChangeKind, Landed, ReviewComment } from '../../daemon/contract/changes';
import type { SessionView, WorktreeView } from '../../daemon/contract/session';
import { visible } from './words';

/**
 * Whether a session's changes can be reviewed: it has a repository to compare with (its own
 * worktree, or a folder whose git is known: null until the first look, and outside one).
 */
export function hasRepository(session: Pick<SessionView, 'git' | 'worktree'>): boolean {
  return session.git !== null || session.worktree !== null;
}

/** A session's worktree on its row and tab: the branch, then how far it is from its base. */
export function worktreeMark(worktree: WorktreeView): { branch: string; status: string; title: string; tone: 'normal' | 'busy' | 'bad' } {
  const branch = visible(worktree.branch);
  if (worktree.missing) return { branch, status: 'worktree deleted', title: `Its worktree folder is gone: ${visible(worktree.path)}. Remove the session.`, tone: 'bad' };
  if (worktree.settingUp) return { branch, status: 'setting up', title: `The repository's setup command is running in ${visible(worktree.path)}`, tone: 'busy' };
  const state = worktree.state;
  if (!state) return { branch, status: '', title: `Worktree at ${visible(worktree.path)}, from ${visible(worktree.base)}`, tone: 'normal' };
  const parts = [state.ahead > 0 ? `↑${state.ahead}` : '', state.behind > 0 ? `↓${state.behind}` : '', state.changedFiles > 0 ? `· ${state.changedFiles} file${state.changedFiles === 1 ? '' : 's'}` : ''].filter(Boolean);
  const words = [
    `${state.ahead} commit${state.ahead === 1 ? '' : 's'} ahead of ${visible(worktree.base)}`,
    `${state.behind} behind`,
    `${state.changedFiles} changed file${state.changedFiles === 1 ? '' : 's'}`,
    state.uncommitted > 0 ? `${state.uncommitted} uncommitted` : 'nothing uncommitted',
  ];
  return { branch, status: parts.join(' '), title: `${words.join(', ')} — ${visible(worktree.path)}`, tone: 'normal' };
}

/** The mark in words, for a screen reader: "worktree corral/x, 2 ahead, 1 behind, 3 changed files". */
export function worktreeWords(worktree: WorktreeView): string {
  const branch = `worktree ${visible(worktree.branch)}`;
  if (worktree.missing) return `${branch}, worktree deleted`;
  if (worktree.settingUp) return `${branch}, setting up`;
  const state = worktree.state;
  if (!state) return branch;
  return `${branch}, ${state.ahead} ahead, ${state.behind} behind, ${state.changedFiles} changed file${state.changedFiles === 1 ? '' : 's'}`;
}

/** The one letter git shows for a change, and its word. */
export function kindMark(kind: ChangeKind): { letter: string; word: string } {
  const marks: Record<ChangeKind, { letter: string; word: string }> = {
    added: { letter: 'A', word: 'added' },
    modified: { letter: 'M', word: 'modified' },
    deleted: { letter: 'D', word: 'deleted' },
    renamed: { letter: 'R', word: 'renamed' },
    untracked: { letter: 'U', word: 'new, not yet added to git' },
    typechange: { letter: 'T', word: 'type changed' },
  };
  return marks[kind];
}

/** The highlighter's language for a file, by its name; null for one it does not know. */
export function languageOf(file: string): Language | null {
  const name = file.split('/').pop()!.toLowerCase();
  if (name === 'dockerfile') return 'docker';
  if (name === 'makefile') return 'makefile';
  const ext = name.includes('.') ? name.split('.').pop()! : '';
  return EXTENSIONS[ext] ?? null;
}

/** The languages a diff is highlighted in: a small common set, each loaded when first needed. */
export type Language =
  | 'javascript'
  | 'jsx'
  | 'typescript'
  | 'tsx'
  | 'json'
  | 'css'
  | 'markup'
  | 'markdown'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'ruby'
  | 'bash'
  | 'yaml'
  | 'toml'
  | 'sql'
  | 'docker'
  | 'makefile';

const EXTENSIONS: Record<string, Language> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  json: 'json',
  css: 'css',
  html: 'markup',
  htm: 'markup',
  xml: 'markup',
  svg: 'markup',
  md: 'markdown',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  rb: 'ruby',
  sh: 'bash',
  bash: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  sql: 'sql',
};

/** A line of a diff as the selection sees it (react-diff-view's change, reduced). */
export interface DiffLine {
  type: 'insert' | 'delete' | 'normal';
  /** The line's number in the file now (inserted and unchanged lines). */
  newLine: number | null;
  /** Its number in the file as it was (deleted and unchanged lines). */
  oldLine: number | null;
}

/**
 * The lines a selection from `from` to `to` (indexes into the diff's lines, either order)
 * comments on: lines of the file as it is now, or, when only removed lines are selected, of the
 * file as it was.
 */
export function selectedLines(lines: readonly DiffLine[], from: number, to: number): { startLine: number; endLine: number } | null {
  const chosen = lines.slice(Math.min(from, to), Math.max(from, to) + 1);
  const now = chosen.map((l) => l.newLine).filter((n): n is number => n !== null);
  const before = chosen.map((l) => l.oldLine).filter((n): n is number => n !== null);
  const numbers = now.length > 0 ? now : before;
  if (numbers.length === 0) return null;
  return { startLine: Math.min(...numbers), endLine: Math.max(...numbers) };
}

/** "src/app.js line 2", "README.md lines 1-3": where a comment is, as the agent is told. */
export function whereWords(comment: Pick<ReviewComment, 'path' | 'startLine' | 'endLine'>): string {
  return comment.startLine === comment.endLine ? `${comment.path} line ${comment.startLine}` : `${comment.path} lines ${comment.startLine}-${comment.endLine}`;
}

/** What a merge did, in a sentence. */
export function landedWords(landed: Landed, branch: string, base: string): string {
  const commit = landed.commit.slice(0, 8);
  switch (landed.how) {
    case 'fast-forward':
      return `Merged: ${visible(base)} moved forward to ${visible(branch)} (fast-forward, ${commit}).`;
    case 'merge-commit':
      return `Merged: ${visible(branch)} into ${visible(base)} with a merge commit (${commit}).`;
    case 'up-to-date':
      return `Nothing to merge: ${visible(base)} already has everything on ${visible(branch)}.`;
  }
}

/** What removing a worktree loses, as far as the last look knows. */
export function lossWords(worktree: WorktreeView, deleteBranch: boolean): string {
  const state = worktree.state;
  const lost = [`its folder ${visible(worktree.path)}`];
  if (state && state.uncommitted > 0) lost.push(`${state.uncommitted} uncommitted change${state.uncommitted === 1 ? '' : 's'}`);
  if (deleteBranch) lost.push(`the branch ${visible(worktree.branch)}${state && state.ahead > 0 ? ` with ${state.ahead} commit${state.ahead === 1 ? '' : 's'} not on ${visible(worktree.base)}` : ''}`);
  return `${lost.slice(0, -1).join(', ')}${lost.length > 1 ? ' and ' : ''}${lost.at(-1)}`;
}
