// Git worktrees for sessions: one per agent, on a branch of its own, made outside the
// repository (under Corral's data folder, grouped by repository), so agents never trample each
// other and the repository's own files (.gitignore included) are never touched. Nothing here
// deletes work nobody chose to delete.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CorralError } from '../contract/errors';
import { fileSignature } from '../util/fileSignature';
import { answers, git, GitError, read } from './git';

export interface Repo {
  /** The top of the folder's working tree (the main worktree, or a linked one). */
  root: string;
  /** The repository's shared .git folder: the same for all of its worktrees. */
  commonDir: string;
}

export interface Worktree {
  path: string;
  branch: string;
  /** What it was made from: a branch name where there was one, else a commit. */
  base: string;
  baseCommit: string;
  /** Its own git folder in the repository's (its HEAD and that HEAD's history, which go with it). */
  gitDir: string;
}

/** The repository a folder is in; `not_a_repository` when it is in none. */
export async function repoOf(folder: string, env?: NodeJS.ProcessEnv): Promise<Repo> {
  let out: string;
  try {
    out = await read(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'], { cwd: folder, env });
  } catch (err) {
    if (err instanceof GitError) throw new CorralError('not_a_repository', `${folder} is not in a git repository`, 'cwd');
    throw err;
  }
  const [root, commonDir] = out.trim().split('\n');
  if (!root || !commonDir) throw new CorralError('not_a_repository', `${folder} is not in a git repository (it has no working tree)`, 'cwd');
  return { root, commonDir };
}

/** Where a repository's worktrees go: one folder per repository, named after it, under `home`. */
export function worktreesOf(home: string, repo: Repo): string {
  const mainRoot = path.basename(repo.commonDir) === '.git' ? path.dirname(repo.commonDir) : repo.commonDir;
  const hash = crypto.createHash('sha256').update(repo.commonDir).digest('hex').slice(0, 8);
  return path.join(home, `${slug(path.basename(mainRoot)) || 'repository'}-${hash}`);
}

/** A name made safe for a branch and a folder: lower case, words joined by "-". */
export function slug(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
}

/**
 * A new worktree for a session: on `branch` (made from `base`; default `corral/<name>`, made
 * unique), in a folder of its own under `home`. An existing branch given by name is checked out
 * as it is, when no other worktree has it.
 */
export async function addWorktree(options: { repo: Repo; home: string; name: string; branch?: string; base?: string; env?: NodeJS.ProcessEnv }): Promise<Worktree> {
  const { repo, env } = options;
  const run = { cwd: repo.root, env };
  const base = options.base ?? ((await read(['symbolic-ref', '--quiet', '--short', 'HEAD'], { ...run, okCodes: [1] })).trim() || 'HEAD');
  let baseCommit: string;
  try {
    baseCommit = (await read(['rev-parse', '--verify', '--end-of-options', `${base}^{commit}`], run)).trim();
  } catch (err) {
    if (err instanceof GitError) throw new CorralError('bad_request', `there is no branch or commit "${base}" in ${repo.root}`, 'base');
    throw err;
  }
  const existing = options.branch !== undefined && (await branchExists(repo, options.branch, env));
  const branch = options.branch ?? (await freeBranch(repo, `corral/${slug(options.name) || 'session'}`, env));
  if (!existing) await checkBranchName(repo, branch, env);
  const parent = worktreesOf(options.home, repo);
  fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  const folder = freeFolder(parent, slug(branch.replace(/^corral\//, '')) || 'session');
  await git(['worktree', 'add', ...(existing ? [] : ['-b', branch]), '--end-of-options', folder, existing ? branch : baseCommit], run);
  const gitDir = (await read(['rev-parse', '--absolute-git-dir'], { cwd: folder, env })).trim();
  return { path: folder, branch, base: base === 'HEAD' ? baseCommit : base, baseCommit, gitDir };
}

function branchExists(repo: Repo, branch: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  return answers(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo.root, env });
}

async function freeBranch(repo: Repo, wanted: string, env?: NodeJS.ProcessEnv): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? wanted : `${wanted}-${n}`;
    if (!(await branchExists(repo, name, env))) return name;
  }
}

async function checkBranchName(repo: Repo, branch: string, env?: NodeJS.ProcessEnv): Promise<void> {
  try {
    await read(['check-ref-format', '--branch', branch], { cwd: repo.root, env });
  } catch (err) {
    if (err instanceof GitError) throw new CorralError('bad_request', `"${branch}" cannot be a branch name`, 'branch');
    throw err;
  }
}

function freeFolder(parent: string, wanted: string): string {
  for (let n = 1; ; n++) {
    const folder = path.join(parent, n === 1 ? wanted : `${wanted}-${n}`);
    if (!fs.existsSync(folder)) return folder;
  }
}

// ---- what a worktree holds ---------------------------------------------------------------

export interface WorktreeState {
  /** The folder is gone (deleted by hand): git still lists it until pruned. */
  missing: boolean;
  /** Changes not committed: modified, staged or untracked files. */
  uncommitted: number;
  /**
   * Commits on its branch that its base does not have: the branch's, read in the repository,
   * whatever its folder has checked out now, and when its folder is gone.
   */
  ahead: number;
  /** Commits on its base since it was made (or last merged). */
  behind: number;
  /**
   * Commits only the worktree holds: on no branch, tag or remote, and in no history that outlives
   * it, but on its HEAD (detached) or in its HEAD's history (its reflog: a commit made on a
   * detached HEAD before the agent went back to its branch, or on a branch since deleted). Its
   * folder and its git folder go together, and these commits with them. Counted when the folder
   * was deleted by hand too: its git folder keeps them until git prunes it.
   */
  detached: number;
  /** The newest of them, to name in a message. */
  detachedNewest: string | null;
}

type TreeRefs = { path: string; branch: string; base: string; baseCommit: string; repo: string; gitDir: string };

/** The most commits of a HEAD's history looked at (its newest); a worktree's reflog rarely has a tenth. */
const HISTORY_LOOKED_AT = 5_000;

export async function worktreeState(tree: TreeRefs, env?: NodeJS.ProcessEnv): Promise<WorktreeState> {
  const inRepo = { cwd: tree.repo, env };
  const branch = `refs/heads/${tree.branch}`;
  let [behind, ahead] = [0, 0];
  if (await exists(branch, inRepo)) {
    const base = (await exists(tree.base, inRepo)) ? tree.base : tree.baseCommit;
    [behind = 0, ahead = 0] = (await read(['rev-list', '--left-right', '--count', '--end-of-options', `${base}...${branch}`], inRepo)).trim().split(/\s+/).map(Number);
  }
  const onlyHere = await heldOnlyBy(tree, inRepo);
  const detached = { detached: onlyHere.length, detachedNewest: onlyHere[0] ?? null };
  if (!fs.existsSync(tree.path)) return { missing: true, uncommitted: 0, ahead, behind, ...detached };
  const status = await read(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: tree.path, env });
  const uncommitted = status.split('\0').filter((entry) => entry.length > 3 && entry[2] === ' ').length;
  return { missing: false, uncommitted, ahead, behind, ...detached };
}

/** Each worktree's repository's git folder, by its own git folder (`commondir`), read once. */
const commonDirs = new Map<string, string>();

/**
 * What git keeps on disk that a worktree's state is read from, as the files' identities and
 * times: its folder, its git folder's HEAD, index and HEAD history, and the refs its branch and
 * base can be (loose, or packed). Reading it costs a few `stat` calls and no git process; a
 * commit, a checkout, a staged change, a branch or base moved, or the folder deleted each
 * change it. What it cannot see is a file of the working tree edited in place.
 */
export function worktreeStamp(tree: TreeRefs): string {
  let common = commonDirs.get(tree.gitDir);
  if (common === undefined) {
    common = path.resolve(tree.gitDir, readIfThere(path.join(tree.gitDir, 'commondir'))?.trim() || '../..');
    commonDirs.set(tree.gitDir, common);
  }
  // Its branch is a branch; its base may be a branch, a remote's or a tag.
  const refs = [`refs/heads/${tree.branch}`, ...(tree.base.startsWith('refs/') ? [tree.base] : [`refs/heads/${tree.base}`, `refs/remotes/${tree.base}`, `refs/tags/${tree.base}`])];
  const files = [tree.path, ...['HEAD', 'index', 'logs/HEAD'].map((file) => path.join(tree.gitDir, file)), path.join(common, 'packed-refs'), ...refs.map((ref) => path.join(common, ref))];
  return files.map(fileSignature).join(' ');
}

/**
 * The commits (newest first) that only a worktree's own git folder holds: its HEAD's and its
 * HEAD's history's, less what any branch, tag or remote reaches, and less what the histories
 * that stay when it goes reach (the branches' own, the repository's HEAD's: `--reflog` read from
 * the repository's folder, `--single-worktree`, which leaves this worktree's HEAD out). Read
 * from its git folder's files, so a folder deleted by hand is looked at too.
 */
async function heldOnlyBy(tree: TreeRefs, inRepo: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string[]> {
  const commit = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
  const head = readIfThere(path.join(tree.gitDir, 'HEAD'))?.trim() ?? '';
  const history = (readIfThere(path.join(tree.gitDir, 'logs', 'HEAD')) ?? '').split('\n').flatMap((line) => line.split(' ', 2));
  const held = [...new Set([head, ...history.reverse()].filter((sha) => commit.test(sha) && !/^0+$/.test(sha)))].slice(0, HISTORY_LOOKED_AT);
  if (held.length === 0) return [];
  // --ignore-missing: a commit git has since pruned is gone whatever is done.
  const args = ['rev-list', '--ignore-missing', ...held, '--not', '--branches', '--tags', '--remotes', '--single-worktree', '--reflog'];
  return (await read(args, inRepo)).split('\n').filter(Boolean);
}

function readIfThere(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Whether `ref` names a commit there. */
async function exists(ref: string, run: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<boolean> {
  return (await read(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { ...run, okCodes: [1] })).trim() !== '';
}

/**
 * Takes a worktree away. `force` removes it with its uncommitted changes; without it, git
 * refuses a worktree that has any. The branch stays unless `deleteBranch`. A folder already
 * deleted by hand is pruned from git's list.
 */
export async function removeWorktree(repo: Repo, tree: { path: string; branch: string }, options: { force: boolean; deleteBranch: boolean; env?: NodeJS.ProcessEnv }): Promise<void> {
  const run = { cwd: repo.root, env: options.env };
  if (fs.existsSync(tree.path)) await git(['worktree', 'remove', ...(options.force ? ['--force'] : []), '--end-of-options', tree.path], run);
  else await git(['worktree', 'prune'], run);
  if (options.deleteBranch) await git(['branch', '-D', '--end-of-options', tree.branch], run);
}
