// Each session folder's git branch and whether it has uncommitted changes, for the tab strip:
// asked of git in the background (git.ts), kept in the runtime for views, and told to clients
// only when it changed.

import { isRunning } from '../contract/session';
import { folderStamp, gitContext } from './git';
import { LookSchedule } from './lookSchedule';
import type { Runtime } from './runtime';
import type { Views } from './views';

export class GitWatcher {
  /** When to ask about each folder (by its path): at every tick while a session there is at work. */
  private readonly schedule = new LookSchedule<string>(0);
  private refreshing = false;

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
  ) {}

  /**
   * Asks git about each folder: a folder where a session is at work at every tick, and once more
   * at the first tick after its sessions went quiet (the state they left it in: a last commit, the
   * files written last); the others (idle agents change nothing) when what git keeps of the
   * folder changed (`folderStamp`: a commit, a checkout, a staged change), and otherwise every
   * IDLE_LOOK_MS (a file edited by hand). `all` asks for every one. Asking every tick for 30 s after
   * any output, and every 30 s after that, cost a `git status` a folder that often: most of what
   * 50 idle sessions cost, and 2.6% of a core with 50 in folders of their own (bench/README.md,
   * "Figure 10: git asked once after the work").
   */
  async refresh(all = false): Promise<void> {
    if (this.rt.closing || this.refreshing) return;
    this.refreshing = true;
    try {
      const rows = this.rt.store.listSessions().filter((row) => row.archivedAt === null);
      this.schedule.startTick(this.rt.clock.now());
      for (const row of rows) this.schedule.sawWork(row.cwd, isRunning(row.state) && this.rt.working.has(row.id), this.rt.workingSeenAt.get(row.id));
      for (const cwd of new Set(rows.map((row) => row.cwd))) {
        if (all) this.schedule.forget(cwd);
        if (!this.schedule.due(cwd, folderStamp(cwd), this.rt.clock.now())) continue;
        const git = await gitContext(cwd, this.rt.env);
        if (this.rt.closing) return;
        const before = this.rt.gitByCwd.get(cwd);
        this.rt.gitByCwd.set(cwd, git);
        if (before !== undefined && JSON.stringify(before) === JSON.stringify(git)) continue;
        for (const row of rows) if (row.cwd === cwd) this.views.emit('updated', row.id);
      }
    } finally {
      this.refreshing = false;
    }
  }

  /** A folder back in the tab strip (a session restored) is asked about now, or at the next look if one is under way. */
  askAgain(cwd: string): void {
    this.schedule.forget(cwd);
    this.refresh().catch((err: Error) => console.error(`corral: the git watcher failed (it goes on): ${err.message}`));
  }
}
