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
   * Asks git about each folder: a folder where a session is at work, or was within the slow
   * interval (its last commit shows), at every tick; the others (idle agents change nothing) six
   * times less often. `all` asks for every one.
   */
  async refresh(all = false): Promise<void> {
    if (this.rt.closing || this.refreshing) return;
    this.refreshing = true;
    try {
      const rows = this.rt.store.listSessions().filter((row) => row.archivedAt === null);
      const slow = (this.rt.options.gitIntervalMs ?? 5_000) * 6;
      for (const row of rows) if (isRunning(row.state) && this.rt.working.has(row.id)) this.busyAt.set(row.cwd, this.rt.clock.now());
      for (const cwd of new Set(rows.map((row) => row.cwd))) {
        const now = this.rt.clock.now();
        const busy = now - (this.busyAt.get(cwd) ?? -Infinity) < slow;
        if (!all && !busy && now - (this.askedAt.get(cwd) ?? 0) < slow) continue;
        this.askedAt.set(cwd, now);
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
