// A folder's git branch and whether it has uncommitted changes, for the tab strip.
// Asked of git itself, started off the event loop (util/startProcess.ts), with a time limit, and
// without the optional locks (an agent committing in the same repository must never meet Corral's
// index.lock).

import fs from 'node:fs';
import path from 'node:path';
import { fileSignature } from '../util/fileSignature';
import { NO_FSMONITOR } from '../worktrees/git';
import { startProcess } from '../util/startProcess';
import type { GitContext } from '../contract/session';

export const GIT_TIMEOUT_MS = 3_000;

/** The folder's git context, or null when it is not in a repository (or git is absent or slow). */
export async function gitContext(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<GitContext | null> {
  const { failed, stdout } = await startProcess({
    file: 'git',
    args: ['--no-optional-locks', 'status', '--porcelain=v2', '--branch', '--untracked-files=normal', '--ignore-submodules=dirty'],
    cwd,
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 4 * 1024 * 1024,
    env: { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...NO_FSMONITOR },
  });
  return failed ? null : parseStatus(stdout);
}

/** Reads `git status --porcelain=v2 --branch`. */
export function parseStatus(text: string): GitContext | null {
  let head: string | null = null;
  let oid: string | null = null;
  let dirty = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('# branch.head ')) head = line.slice('# branch.head '.length).trim();
    else if (line.startsWith('# branch.oid ')) oid = line.slice('# branch.oid '.length).trim();
    else if (line && !line.startsWith('#')) dirty = true;
  }
  if (head === null) return null;
  const branch = head === '(detached)' ? (oid && oid !== '(initial)' ? oid.slice(0, 7) : 'detached') : head;
  return { branch, dirty };
}

/**
 * What git keeps of a folder's branch and index, as files' signatures: the folder itself, and
 * its repository's HEAD, index and HEAD history (found by walking up to `.git`, a folder or a
 * linked worktree's file). A commit, a checkout, a reset, a staged change or a file added or
 * removed at the folder's top changes it; a file edited in place does not. No git process.
 */
export function folderStamp(cwd: string): string {
  // Where a folder's repository is is walked up to once, and again only once it is gone.
  let gitDir = gitDirs.get(cwd) ?? null;
  if (gitDir === null || !fs.existsSync(path.join(gitDir, 'HEAD'))) {
    gitDir = gitDirOf(cwd);
    if (gitDir === null) gitDirs.delete(cwd);
    else gitDirs.set(cwd, gitDir);
  }
  const files = [cwd, ...(gitDir ? ['HEAD', 'index', 'logs/HEAD'].map((file) => path.join(gitDir, file)) : [])];
  return `${gitDir ?? 'no repository'} ${files.map(fileSignature).join(' ')}`;
}

const gitDirs = new Map<string, string>();

/** The git folder of the repository a folder is in, or null. */
function gitDirOf(cwd: string): string | null {
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    const dotGit = path.join(folder, '.git');
    const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return dotGit;
    if (stat?.isFile()) {
      const pointer = /^gitdir: (.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1]?.trim();
      return pointer ? path.resolve(folder, pointer) : null;
    }
    if (path.dirname(folder) === folder) return null;
  }
}
