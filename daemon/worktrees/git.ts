// Running git for worktrees and reviews: off the event loop, with a time limit, in a plain
// environment (no pager, no prompts, no editor), and never fighting an agent for its index:
// reads take no optional locks, and a change refuses while another git holds the index lock.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CorralError } from '../contract/errors';

export const GIT_TIMEOUT_MS = 15_000;
/** The most output one git call may give (a diff beyond it is cut, and says so). */
export const GIT_MAX_OUTPUT = 32 * 1024 * 1024;

export interface GitOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Exit codes that are answers, not failures (e.g. 1 from `diff --no-index`: "they differ"). */
  okCodes?: number[];
  /** The whole environment (a push needs the person's SSH agent and credentials); else a plain one. */
  wholeEnv?: boolean;
}

/** git said no: its own first line of explanation, as a failure the UI can show. */
export class GitError extends CorralError {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super('git_failed', `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed: ${firstLine(stderr) || `exit code ${exitCode}`}`);
  }
}

/** git's output. Reads: pass `--no-optional-locks` style commands through `read`. */
export function git(args: string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: GIT_MAX_OUTPUT,
        encoding: 'utf8',
        env: options.wholeEnv ? { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true' } : gitEnv(options.env ?? process.env),
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const code = typeof err.code === 'number' ? err.code : null;
        if (code !== null && options.okCodes?.includes(code)) return resolve(stdout);
        if (err.killed) return reject(new CorralError('git_failed', `git ${args[0]} took longer than ${(options.timeoutMs ?? GIT_TIMEOUT_MS) / 1000} s in ${options.cwd}`));
        reject(new GitError(args, code, stderr));
      },
    );
  });
}

/** A read: it takes no optional locks, so an agent's own git never meets Corral's index.lock. */
export function read(args: string[], options: GitOptions): Promise<string> {
  return git(['--no-optional-locks', ...args], options);
}

/** A yes-or-no read: git's exit code 0 is yes and 1 is no (`merge-base --is-ancestor`, `show-ref --verify`). */
export async function answers(args: string[], options: GitOptions): Promise<boolean> {
  try {
    await read(args, options);
    return true;
  } catch (err) {
    if (err instanceof GitError && err.exitCode === 1) return false;
    throw err;
  }
}

/** Refuses a change while another git (the agent's) holds the worktree's index lock. */
export async function whenIndexFree(worktree: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const gitDir = (await read(['rev-parse', '--absolute-git-dir'], { cwd: worktree, env })).trim();
  if (fs.existsSync(path.join(gitDir, 'index.lock'))) {
    throw new CorralError('conflict', `git is busy in ${worktree} (another git command holds its index.lock): try again when it has finished`);
  }
}

/**
 * `core.fsmonitor=false` for every git Corral runs on its own: a folder's `.git/config` (one that
 * came with a downloaded folder, say) can name a command as its file-system monitor, which `git
 * status` and `git diff` would run, unasked. (What git config cannot switch off for every
 * repository, a `filter` driver's command, is in docs/known-issues.md.)
 */
export const NO_FSMONITOR = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'false' } as const;

function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: env.PATH ?? '/usr/bin:/bin',
    HOME: env.HOME ?? '',
    LC_ALL: 'C',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'true',
    ...NO_FSMONITOR,
    // The person's identity and config still count: a merge commit is theirs.
    ...(env.GIT_AUTHOR_NAME ? { GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME } : {}),
    ...(env.GIT_AUTHOR_EMAIL ? { GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL } : {}),
    ...(env.GIT_COMMITTER_NAME ? { GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME } : {}),
    ...(env.GIT_COMMITTER_EMAIL ? { GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL } : {}),
    ...(env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME } : {}),
  };
}

function firstLine(text: string): string {
  return text.split('\n').map((line) => line.replace(/^(fatal|error): /, '').trim()).find(Boolean) ?? '';
}
