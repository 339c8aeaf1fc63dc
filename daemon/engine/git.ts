// A folder's git branch and whether it has uncommitted changes, for the tab strip.
// Asked of git itself, started off the event loop (util/startProcess.ts), with a time limit, and
// without the optional locks (an agent committing in the same repository must never meet Corral's
// index.lock).

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
    env: { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
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
