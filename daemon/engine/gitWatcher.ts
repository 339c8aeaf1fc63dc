// Each session folder's git branch and whether it has uncommitted changes, for the tab strip:
// asked of git in the background (git.ts), kept in the runtime for views, and told to clients
// only when it changed.

import { isRunning } from '../contract/session';
import { gitContext } from './git';
import type { Runtime } from './runtime';
import type { Views } from './views';

export class GitWatcher {
  /** When each folder's git context was last asked for. */
  private readonly askedAt = new Map<string, number>();
  /** When each folder last had a session at work in it (printing: Runtime.working). */
  private readonly busyAt = new Map<string, number>();
  private refreshing = false;

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
  ) {}

  /**
   * Asks git about each folder: a folder where a session is at work at every tick, and once more
   * at the first tick after its sessions went quiet (the state they left it in: a last commit, the
   * files written last); the others (idle agents change nothing) six times less often. `all` asks
   * for every one. Asking every tick for a while after the work ended cost a `git status` a folder
   * every 5 s for 30 s after each burst of output, the most of what 50 idle sessions cost
   * (bench/README.md, "Figure 10: git asked once after the work").
   */
  async refresh(all = false): Promise<void> {
    if (this.rt.closing || this.refreshing) return;
    this.refreshing = true;
    try {
      const rows = this.rt.store.listSessions().filter((row) => row.archivedAt === null);
      const slow = (this.rt.options.gitIntervalMs ?? 5_000) * 6;
      const tick = this.rt.clock.now();
      for (const row of rows) if (isRunning(row.state) && this.rt.working.has(row.id)) this.busyAt.set(row.cwd, tick);
      for (const cwd of new Set(rows.map((row) => row.cwd))) {
        const asked = this.askedAt.get(cwd);
        const busyAt = this.busyAt.get(cwd) ?? -Infinity;
        // At work at this tick, or at the tick git was last asked at (so not asked since the work ended).
        const busy = busyAt === tick || (asked !== undefined && busyAt >= asked);
        if (!all && !busy && tick - (asked ?? 0) < slow) continue;
        this.askedAt.set(cwd, tick);
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
    this.askedAt.delete(cwd);
    this.refresh().catch((err: Error) => console.error(`corral: the git watcher failed (it goes on): ${err.message}`));
  }
}
