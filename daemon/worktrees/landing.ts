// Landing a session's branch on its base: a fast-forward where it can, else a merge commit.
// Whether it merges cleanly is asked of `git merge-tree` first, which touches no worktree and
// no index: a conflict is reported with its files and nothing is left half-merged. Where the
// base is checked out (the person's own folder, usually), the merge runs there only if that
// folder has no changes of its own; elsewhere the branch is moved with a compare-and-swap.

import fs from 'node:fs';
import type { Landed } from '../contract/changes';
import { CorralError } from '../contract/errors';
import { answers, git, GitError, read, whenIndexFree } from './git';
import type { Repo } from './worktrees';

/** Commits everything in the worktree (new files too) as one commit, when there is anything. */
export async function commitAll(worktree: string, message: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  if (!message.trim()) throw new CorralError('bad_request', 'a commit needs a message', 'message');
  await whenIndexFree(worktree, env);
  const run = { cwd: worktree, env };
  if ((await read(['status', '--porcelain', '--untracked-files=all'], run)).trim() === '') return false;
  await git(['add', '--all'], run);
  await git(['commit', '--quiet', '--no-verify', '-m', message], run);
  return true;
}

/** Merges `branch` into `base`. Refuses, changing nothing, on a conflict or a busy base folder. */
export async function mergeInto(repo: Repo, branch: string, base: string, env?: NodeJS.ProcessEnv): Promise<Landed> {
  const run = { cwd: repo.root, env };
  const [baseCommit, branchCommit] = await Promise.all([commitOf(repo, base, 'base', env), commitOf(repo, branch, 'branch', env)]);
  if (await isAncestor(repo, branchCommit, baseCommit, env)) return { how: 'up-to-date', commit: baseCommit };
  const fastForward = await isAncestor(repo, baseCommit, branchCommit, env);
  let tree: string | null = null;
  if (!fastForward) {
    // Exit code 1: it merged with conflicts; the files are listed after the tree.
    const out = await read(['merge-tree', '--write-tree', '--name-only', '--no-messages', baseCommit, branchCommit], { ...run, okCodes: [1] });
    const [written, ...conflicted] = out.split('\n').filter(Boolean);
    if (conflicted.length > 0) {
      throw new CorralError('conflict', `${branch} does not merge cleanly into ${base}: ${conflicted.length === 1 ? 'a conflict in' : 'conflicts in'} ${conflicted.join(', ')}. Nothing was changed.`);
    }
    tree = written ?? null;
  }
  const checkedOut = await checkedOutAt(repo, base, env);
  if (checkedOut) {
    await whenIndexFree(checkedOut, env);
    const local = { cwd: checkedOut, env };
    if ((await read(['status', '--porcelain', '--untracked-files=no'], local)).trim() !== '') {
      throw new CorralError('conflict', `${base} is checked out in ${checkedOut} with changes not committed there: commit or stash them first. Nothing was changed.`);
    }
    try {
      await git(['merge', '--quiet', fastForward ? '--ff-only' : '--no-ff', '--no-edit', '-m', mergeMessage(branch, base), '--end-of-options', branchCommit], local);
    } catch (err) {
      // Untracked files in the way, a hook: whatever it was, leave the folder as it was.
      await git(['merge', '--abort'], { ...local, okCodes: [128] }).catch(() => {});
      throw err;
    }
    return { how: fastForward ? 'fast-forward' : 'merge-commit', commit: (await read(['rev-parse', 'HEAD'], local)).trim() };
  }
  const commit = fastForward ? branchCommit : (await git(['commit-tree', tree!, '-p', baseCommit, '-p', branchCommit, '-m', mergeMessage(branch, base)], run)).trim();
  // Compare-and-swap: if the base moved meanwhile, nothing is changed.
  await git(['update-ref', '-m', `corral: merge ${branch}`, `refs/heads/${base}`, commit, baseCommit], run);
  return { how: fastForward ? 'fast-forward' : 'merge-commit', commit };
}

async function commitOf(repo: Repo, ref: string, field: string, env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await read(['rev-parse', '--verify', '--end-of-options', `refs/heads/${ref}^{commit}`], { cwd: repo.root, env })).trim();
  } catch (err) {
    if (err instanceof GitError) throw new CorralError('bad_request', `there is no branch "${ref}" in ${repo.root}`, field);
    throw err;
  }
}

function isAncestor(repo: Repo, older: string, newer: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  return answers(['merge-base', '--is-ancestor', older, newer], { cwd: repo.root, env });
}

/** The folder where a branch is checked out, if one is (and still exists). */
export async function checkedOutAt(repo: Repo, branch: string, env?: NodeJS.ProcessEnv): Promise<string | null> {
  const out = await read(['worktree', 'list', '--porcelain'], { cwd: repo.root, env });
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const folder = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (folder && lines.includes(`branch refs/heads/${branch}`) && fs.existsSync(folder)) return folder;
  }
  return null;
}

function mergeMessage(branch: string, base: string): string {
  return `Merge branch '${branch}' into ${base}`;
}
