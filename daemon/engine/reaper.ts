// The idle reaper (docs/lifecycle.md, rule 8): sessions with no output or input for their
// CLI's idle_timeout are stopped. Their keys stay, so they resume.

import { isRunning } from '../contract/session';
import type { Lifecycle } from './lifecycle';
import type { Runtime } from './runtime';

export class Reaper {
  constructor(
    private readonly rt: Runtime,
    private readonly lifecycle: Lifecycle,
  ) {}

  async reap(): Promise<void> {
    if (this.rt.closing) return;
    const now = this.rt.clock.now();
    const alive = new Map((await this.rt.backend.list()).map((p) => [p.id, p]));
    for (const row of this.rt.store.listSessions()) {
      const proc = alive.get(row.id);
      if (!proc || !isRunning(row.state)) continue;
      const last = Math.max(row.lastActivityAt ?? 0, proc.lastActivityAt ?? 0, row.launchedAt ?? 0);
      if (last > (row.lastActivityAt ?? 0)) this.rt.store.updateSession(row.id, { lastActivityAt: last });
      const cli = this.rt.catalogue.clis.get(row.cli);
      const limit = cli?.idleTimeoutMs === undefined ? this.rt.catalogue.defaults.idleTimeoutMs : cli.idleTimeoutMs;
      if (limit === null || now - last < limit) continue;
      await this.rt.queue.run(row.id, async () => {
        const current = this.rt.store.getSession(row.id);
        if (current && isRunning(current.state)) await this.lifecycle.end(current, 'reaped', `stopped after ${formatSpan(now - last)} idle`);
      });
    }
  }
}

function formatSpan(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}
