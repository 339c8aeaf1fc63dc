// Sessions in worktrees of their own (daemon/worktrees): made at create, set up by the
// repository's recipe in the session's own terminal before its agent first starts, looked at
// every few seconds (branch, ahead/behind its base, changed files), reviewed (changes, each
// file's diff, comments sent to the agent), landed (merge) and taken away only as chosen.

import fs from 'node:fs';
import path from 'node:path';
import { resolveCommand } from '../catalogue/catalogue';
import type { Changes, FileDiff, Landed, PullRequestMade, ReviewComment } from '../contract/changes';
import { CorralError } from '../contract/errors';
import type { WorktreeView } from '../contract/session';
import { isCredential } from '../files/fence';
import { expandHome } from '../files/folders';
import type { SessionRow, SessionWorktree } from '../store/store';
import { changedFiles, changesBase, fileDiff } from '../worktrees/changes';
import { commitAll, mergeInto } from '../worktrees/landing';
import { ghReady, openPullRequest } from '../worktrees/pullRequest';
import { copySetupFiles, readSetup, SETUP_FILE } from '../worktrees/setup';
import { addWorktree, removeWorktree, repoOf, worktreeStamp, worktreeState } from '../worktrees/worktrees';
import { LookSchedule } from './lookSchedule';
import type { Runtime, WorktreeLook } from './runtime';
import type { Terminals } from './terminals';
import type { Views } from './views';

/**
 * A worktree whose agent is at work is looked at this often (and at once when a commit, a
 * checkout or a staged change shows in its stamp): a look is nine git processes, and 20 agents at
 * work would otherwise start 36 a second.
 */
export const WORKING_LOOK_MS = 15_000;

/** Written into the worktree's own git folder once its setup command has succeeded. */
const SETUP_DONE = 'corral-setup-done';

/**
 * Runs the setup command, then the agent in its place. A failure says so in the terminal and
 * ends with the command's exit code; the agent does not start, and the next start tries again.
 * $1 the command, $2 the done-mark, then the agent's argv.
 */
const SETUP_SCRIPT = [
  `printf '\\033[1mcorral: setting up this worktree: %s\\033[0m\\n' "$1"`,
  `/bin/sh -c "$1" || { s=$?; printf '\\n\\033[1mcorral: the setup command failed (exit code %s): %s\\033[0m\\n' "$s" "$1"; exit "$s"; }`,
  `: > "$2"`,
  `printf '\\033[1mcorral: setup done\\033[0m\\n'`,
  'shift 2',
  'exec "$@"',
].join('\n');

export type WorktreeChoice = 'keep' | 'remove';

/** Whether the session's worktree still waits for its setup command to succeed. */
export function settingUp(row: SessionRow): boolean {
  return !!row.worktree?.setup && !fs.existsSync(path.join(row.worktree.gitDir, SETUP_DONE));
}

/** The agent's argv, behind the setup command while the worktree is not set up yet. */
export function setupArgv(row: SessionRow, file: string, args: string[]): { file: string; args: string[] } {
  if (!settingUp(row)) return { file, args };
  return { file: '/bin/sh', args: ['-c', SETUP_SCRIPT, 'corral-setup', row.worktree!.setup!, path.join(row.worktree!.gitDir, SETUP_DONE), file, ...args] };
}

/** What clients see of a session's worktree. */
export function worktreeView(row: SessionRow, seen: WorktreeLook | undefined): WorktreeView | null {
  if (!row.worktree) return null;
  return {
    path: row.worktree.path,
    repo: row.worktree.repo,
    branch: row.worktree.branch,
    base: row.worktree.base,
    state: seen?.state ?? null,
    missing: seen?.missing ?? !fs.existsSync(row.worktree.path),
    settingUp: settingUp(row),
  };
}

/** Where worktrees go: the catalogue's `[defaults] worktrees`, else Corral's data folder. */
export function worktreesHome(rt: Runtime): string {
  const setting = rt.catalogue.defaults.worktrees;
  return setting ? expandHome(setting, rt.userHome) : path.join(rt.home, 'worktrees');
}

export class WorktreeSessions {
  /** When to look at each session's worktree (by session id). */
  private readonly schedule = new LookSchedule<string>(WORKING_LOOK_MS);
  private refreshing = false;

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
    private readonly terminals: Terminals,
  ) {}

  /**
   * A worktree for a new session made in `cwd`: its folder (the same place inside the
   * repository as `cwd`) and what to save. The recipe's files are copied now; its command runs
   * in the terminal at the first start.
   */
  async make(cwd: string, name: string, asked: { branch?: string; base?: string; setup?: 'run' | 'skip' }): Promise<{ cwd: string; worktree: SessionWorktree }> {
    const env = this.rt.env;
    const repo = await repoOf(cwd, env);
    const tree = await addWorktree({ repo, home: worktreesHome(this.rt), name, branch: asked.branch, base: asked.base, env });
    try {
      const recipe = readSetup(tree.path);
      const setup = this.setupToRun(repo.root, recipe.setup, asked.setup);
      copySetupFiles(repo.root, tree.path, recipe.copy);
      const inside = path.relative(repo.root, cwd);
      const sessionCwd = inside && !inside.startsWith('..') && fs.existsSync(path.join(tree.path, inside)) ? path.join(tree.path, inside) : tree.path;
      return { cwd: sessionCwd, worktree: { path: tree.path, branch: tree.branch, base: tree.base, baseCommit: tree.baseCommit, repo: repo.root, gitDir: tree.gitDir, setup } };
    } catch (err) {
      // Nothing half-made is left: the worktree and its new branch go again.
      await removeWorktree(repo, tree, { force: true, deleteBranch: asked.branch === undefined, env }).catch(() => {});
      throw err;
    }
  }

  /**
   * The recipe's setup command, when it is to run. The recipe comes with the branch, and a branch
   * can be anyone's (a pull request's, a cloned repository's): its command runs only once the
   * person has allowed that command for that repository (`setup: "run"`, remembered), and never
   * with `setup: "skip"`. Otherwise the worktree is refused, naming the command, with nothing made.
   */
  private setupToRun(repo: string, command: string | null, asked: 'run' | 'skip' | undefined): string | null {
    if (command === null || asked === 'skip') return null;
    if (asked === 'run') this.rt.store.allowSetup(repo, command, this.rt.clock.now());
    else if (!this.rt.store.setupAllowed(repo, command)) {
      throw new CorralError(
        'conflict',
        `this branch's ${SETUP_FILE} runs \`${command}\` before the agent starts, and you have not allowed that command for ${repo}: run it (setup "run", remembered for this repository) or make the worktree without it (setup "skip")`,
        'setup',
      );
    }
    return command;
  }

  /** Undoes `make` for a session that could not start at all. */
  async unmake(worktree: SessionWorktree): Promise<void> {
    await removeWorktree({ root: worktree.repo, commonDir: '' }, worktree, { force: true, deleteBranch: true, env: this.rt.env }).catch((err: Error) => {
      console.error(`corral: could not take away the worktree ${worktree.path}: ${err.message}`);
    });
  }

  /**
   * Looks at the sessions' worktrees; a change is told to everyone. A look is nine git
   * processes, so a worktree is looked at only when it may have changed: while its session is at
   * work (every WORKING_LOOK_MS), once more after the work ended, when what git keeps of it changed
   * (`worktreeStamp`: a commit, a checkout, a staged change, its branch or base moved), when its
   * changes were read for review, and otherwise every IDLE_LOOK_MS, a few a tick, for a file
   * edited by hand. Looking at every one each tick took 124% of a core with 50 idle sessions in
   * worktrees (bench/README.md, "Figure 10: worktrees looked at when they may have changed").
   */
  async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      this.schedule.startTick(this.rt.clock.now());
      for (const row of this.rt.store.listSessions()) {
        if (!row.worktree || this.rt.closing) continue;
        this.schedule.sawWork(row.id, this.rt.working.has(row.id), this.rt.workingSeenAt.get(row.id));
        const stamp = worktreeStamp(row.worktree);
        if (this.schedule.due(row.id, stamp, this.rt.clock.now())) await this.look(row);
      }
    } finally {
      this.refreshing = false;
    }
  }

  /** Looks at one session's worktree now (its stamp read before: a change during the look shows at the next tick). */
  private async look(row: SessionRow): Promise<void> {
    const next = await this.lookAt(row.worktree!).catch((err: Error) => {
      console.error(`corral: could not look at the worktree ${row.worktree!.path}: ${err.message}`);
      return null;
    });
    if (!next) return;
    const before = this.rt.worktreeLooks.get(row.id);
    this.rt.worktreeLooks.set(row.id, next);
    if (JSON.stringify(before) !== JSON.stringify(next)) this.views.emit('updated', row.id);
  }

  private async lookAt(tree: SessionWorktree): Promise<WorktreeLook> {
    const state = await worktreeState(tree, this.rt.env);
    if (state.missing) return { state: null, missing: true };
    const files = await changedFiles(tree.path, await changesBase(tree.path, tree.base, this.rt.env), this.rt.env);
    return { state: { ahead: state.ahead, behind: state.behind, uncommitted: state.uncommitted, changedFiles: files.length }, missing: false };
  }

  // ---- review ------------------------------------------------------------------------------

  /** A session's changes: since its worktree's base, or, without one, what its folder has not committed. */
  async changes(row: SessionRow): Promise<Changes> {
    // The person is looking at its files: the list's look follows at the next tick.
    this.schedule.forget(row.id);
    const { folder, against } = await this.compared(row);
    const from = await changesBase(folder, row.worktree ? against : null, this.rt.env);
    return { folder, against, from, files: await changedFiles(folder, from, this.rt.env) };
  }

  async diff(row: SessionRow, file: string): Promise<FileDiff> {
    // A key's diff is the key: refused as a preview of it is (files/fence.ts), whoever asks.
    if (isCredential(file)) throw new CorralError('forbidden', `${file} looks like a credential file, whose content Corral never shows: see it in the session's terminal`, 'path');
    const { folder, against } = await this.compared(row);
    const from = await changesBase(folder, row.worktree ? against : null, this.rt.env);
    return fileDiff(folder, from, file, this.rt.env);
  }

  private async compared(row: SessionRow): Promise<{ folder: string; against: string }> {
    if (row.worktree) {
      if (!fs.existsSync(row.worktree.path)) throw new CorralError('conflict', `the worktree of session "${row.name}" (${row.worktree.path}) was deleted`);
      return { folder: row.worktree.path, against: row.worktree.base };
    }
    // Said plainly when the folder is in no repository.
    await repoOf(row.cwd, this.rt.env);
    return { folder: row.cwd, against: 'HEAD' };
  }

  /** Comments on the diff, typed into the agent as one message that names each file and its lines. */
  async comment(row: SessionRow, comments: ReviewComment[]): Promise<void> {
    await this.terminals.write({ id: row.id, text: reviewMessage(comments), submit: true });
  }

  // ---- landing -----------------------------------------------------------------------------

  /** Merges the session's branch into its base; uncommitted work is committed first only when a message is given. */
  async merge(row: SessionRow, message: string | undefined): Promise<Landed> {
    const tree = this.worktreeOf(row);
    const env = this.rt.env;
    const state = await worktreeState(tree, env);
    if (state.missing) throw new CorralError('conflict', `the worktree of session "${row.name}" (${tree.path}) was deleted`);
    if (state.uncommitted > 0) {
      if (message === undefined) {
        throw new CorralError('conflict', `${plural(state.uncommitted, 'change')} in ${tree.path} not committed: give a commit message to commit them all first, or commit them yourself`, 'message');
      }
      await commitAll(tree.path, message, env);
    }
    const landed = await mergeInto(await repoOf(tree.repo, env), tree.branch, tree.base, env);
    this.views.record(row.id, 'merged', landed.how === 'up-to-date' ? `${tree.base} already has ${tree.branch}` : `merged ${tree.branch} into ${tree.base} (${landed.how})`, {
      branch: tree.branch,
      base: tree.base,
      ...landed,
    });
    // This session's look at once; the others on the same base see it moved at the next tick.
    this.schedule.lookedAt(row.id, this.rt.clock.now(), worktreeStamp(tree));
    await this.look(this.rt.row(row.id));
    return landed;
  }

  /** Pushes the branch and opens a pull request with `gh`; uncommitted work is committed first only when a message is given. */
  async pullRequest(row: SessionRow, req: { title?: string; body?: string; message?: string }): Promise<PullRequestMade> {
    const tree = this.worktreeOf(row);
    const env = this.rt.env;
    const state = await worktreeState(tree, env);
    if (state.missing) throw new CorralError('conflict', `the worktree of session "${row.name}" (${tree.path}) was deleted`);
    // Nothing is committed for a pull request that cannot be opened.
    const gh = await ghReady(resolveCommand('gh', env.PATH), tree.path, tree.branch, env);
    if (state.uncommitted > 0) {
      if (req.message === undefined) {
        throw new CorralError('conflict', `${plural(state.uncommitted, 'change')} in ${tree.path} not committed: give a commit message to commit them all first, or commit them yourself`, 'message');
      }
      await commitAll(tree.path, req.message, env);
    }
    const made = await openPullRequest({ folder: tree.path, branch: tree.branch, base: tree.base, gh, title: req.title, body: req.body, env });
    this.views.record(row.id, 'pull-request', `opened a pull request of ${tree.branch} into ${tree.base}: ${made.url}`, { branch: tree.branch, base: tree.base, ...made });
    return made;
  }

  /**
   * What removing a session does to its worktree (after `check`): without a choice, a clean,
   * merged worktree goes (its branch stays); `remove` takes it with its changes; `keep` leaves
   * folder and branch. The branch goes only with `deleteBranch`.
   */
  async release(row: SessionRow, choice: WorktreeChoice | undefined, deleteBranch: boolean): Promise<void> {
    const tree = row.worktree;
    this.rt.worktreeLooks.delete(row.id);
    this.schedule.drop(row.id);
    if (!tree || choice === 'keep') return;
    const env = this.rt.env;
    await removeWorktree(await repoOf(tree.repo, env), tree, { force: choice === 'remove', deleteBranch, env });
  }

  /**
   * Refuses (409, changing nothing) to drop a worktree that holds work, unless the choice was made;
   * to delete a branch with commits its base does not have (they would be lost: only git itself,
   * `git branch -D`, does that); and to remove a worktree that alone holds commits on no branch
   * (on its HEAD or in its HEAD's history), its folder deleted by hand or not.
   */
  async check(row: SessionRow, choice: WorktreeChoice | undefined, deleteBranch: boolean): Promise<void> {
    const tree = row.worktree;
    if (!tree || choice === 'keep') return;
    const state = await worktreeState(tree, this.rt.env);
    const where = `the worktree of session "${row.name}"`;
    const onNoBranch = state.detached > 0 ? `${plural(state.detached, 'commit')} on no branch (made on a detached HEAD, or on a branch since deleted; the newest ${state.detachedNewest!.slice(0, 12)})` : null;
    // (A folder deleted by hand holds nothing to choose about: its branch stays, unless deleted.)
    if (choice === undefined && !state.missing) {
      const held = [state.uncommitted > 0 ? `${plural(state.uncommitted, 'change')} not committed` : null, state.ahead > 0 ? `${plural(state.ahead, 'commit')} not on ${tree.base}` : null, onNoBranch].filter(Boolean);
      if (held.length > 0) throw new CorralError('conflict', `${where} holds work (${held.join(' and ')}): say whether to keep it or remove it`, 'worktree');
    }
    if (deleteBranch && state.ahead > 0) {
      throw new CorralError('conflict', `${where}: its branch ${tree.branch} has ${plural(state.ahead, 'commit')} not on ${tree.base}, which deleting it would lose: merge it first, or keep the branch (nothing was removed)`, 'deleteBranch');
    }
    if (onNoBranch) throw new CorralError('conflict', `${where} holds ${onNoBranch}, which removing it would lose: put them on a branch first (git branch NAME ${state.detachedNewest!.slice(0, 12)}), or keep it (nothing was removed)`, 'worktree');
  }

  private worktreeOf(row: SessionRow): SessionWorktree {
    if (!row.worktree) throw new CorralError('bad_request', `session "${row.name}" has no worktree of its own`, 'id');
    return row.worktree;
  }
}

/** One line the agent reads as the person's: each comment with its file and lines. */
export function reviewMessage(comments: ReviewComment[]): string {
  const one = (c: ReviewComment) => `${c.path} ${c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`}: ${c.text.replace(/\s+/g, ' ').trim()}`;
  return comments.length === 1 ? `Review comment on ${one(comments[0]!)}` : `Review comments: ${comments.map((c, i) => `(${i + 1}) ${one(c)}`).join(' ')}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
