// Each session's usage (tokens, cost, context fill) kept up to date from the CLIs' own
// transcripts (daemon/usage): every session is tracked by its CLI, folder and resume key; a scan
// every USAGE_INTERVAL_MS reads only what the files gained; a session's badge that changed is
// told to everyone. The first scan may read a lot: how far it is shows in the report.

import path from 'node:path';
import type { Progress, UsageBadge, UsageReport, UsageRow } from '../contract/usage';
import { resourcePath } from '../home/resources';
import { loadPrices, type PriceTable } from '../usage/prices';
import { UsageBook } from '../usage/usageBook';
import { fileSignature } from '../util/fileSignature';
import type { Runtime } from './runtime';
import type { Views } from './views';

export const USAGE_INTERVAL_MS = 1_500;
export const SHIPPED_PRICES = resourcePath('prices.toml');

export class UsageWatch {
  private readonly book: UsageBook;
  private progress: Progress | null = null;
  private scanned = false;
  /** The user's price file when the prices were read; null before the first read. */
  private pricesSeen: string | null = null;
  /** The book's revision when the badges were last made: the same revision, the same badges. */
  private badgesAt = -1;

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
  ) {
    // The prices are read at the first scan or report (pricesNow), not while the engine opens.
    this.book = new UsageBook({ prices: { models: new Map(), problems: [] }, env: rt.env, home: rt.userHome, now: () => rt.clock.now() });
    this.book.onProgress((p) => {
      if (!this.scanned) this.progress = p;
    });
  }

  /** One scan: the sessions as they are now, then what their transcripts gained. */
  async scan(): Promise<void> {
    if (this.rt.closing) return;
    this.pricesNow();
    const rows = this.rt.store.listSessions();
    const known = new Set(rows.map((r) => r.id));
    for (const id of this.rt.usage.keys()) {
      if (!known.has(id)) {
        this.book.untrack(id);
        this.rt.usage.delete(id);
      }
    }
    for (const row of rows) this.book.track({ id: row.id, cli: row.cli, cwd: row.cwd, resumeKey: row.resumeKey, startedAt: row.createdAt });
    await this.book.scan();
    this.scanned = true;
    this.progress = null;
    if (this.book.revision === this.badgesAt) return;
    this.badgesAt = this.book.revision;
    for (const row of rows) {
      const badge = badgeOf(this.book.sessionUsage(row.id));
      const before = this.rt.usage.get(row.id) ?? null;
      if (JSON.stringify(before) === JSON.stringify(badge)) continue;
      if (badge) this.rt.usage.set(row.id, badge);
      else this.rt.usage.delete(row.id);
      this.views.emit('updated', row.id);
    }
  }

  report(since: number | undefined): UsageReport {
    this.pricesNow();
    const sessions = this.rt.store
      .listSessions()
      .map((row) => this.book.sessionUsage(row.id))
      .filter((u) => u !== null);
    const rows = this.book.totals({ since, by: 'session' });
    // Nothing spent is $0; only calls none of which has a price cost "no price".
    const total: UsageRow = { key: 'total', calls: 0, tokens: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }, cost: rows.length === 0 ? 0 : null, unpricedModels: [], models: [] };
    for (const row of rows) {
      total.calls += row.calls;
      for (const kind of ['input', 'output', 'cacheWrite', 'cacheRead'] as const) total.tokens[kind] += row.tokens[kind];
      if (row.cost !== null) total.cost = (total.cost ?? 0) + row.cost;
      total.unpricedModels = [...new Set([...total.unpricedModels, ...row.unpricedModels])];
      total.models = [...new Set([...total.models, ...row.models])];
    }
    return {
      at: this.rt.clock.now(),
      scanning: this.scanned ? null : (this.progress ?? { filesDone: 0, filesTotal: 0, bytesRead: 0, bytesTotal: 0 }),
      sessions,
      byProject: this.book.totals({ since, by: 'project' }),
      byDay: this.book.totals({ since, by: 'day' }),
      total,
      quota: this.book.quota(),
    };
  }

  /** The book's prices as the files say now: read the first time, and again when the user's file changed. */
  private pricesNow(): void {
    const signature = this.pricesSignature();
    if (signature === this.pricesSeen) return;
    this.pricesSeen = signature;
    this.book.setPrices(this.readPrices());
  }

  private readPrices(): PriceTable {
    const table = loadPrices({ shippedFile: this.rt.options.shippedPrices ?? SHIPPED_PRICES, userFile: path.join(this.rt.home, 'prices.toml') });
    for (const problem of table.problems) console.error(`corral: ${problem.message}`);
    return table;
  }

  private pricesSignature(): string {
    return fileSignature(path.join(this.rt.home, 'prices.toml'));
  }
}

/** A session's badge: its tokens, cost and how full its context is; null before any call. */
export function badgeOf(usage: ReturnType<UsageBook['sessionUsage']>): UsageBadge | null {
  if (!usage || !usage.readable || usage.calls === 0) return null;
  const t = usage.tokens;
  return { tokens: t.input + t.output + t.cacheWrite + t.cacheRead, cost: usage.cost, partial: usage.unpricedModels.length > 0, contextFill: usage.context?.fill ?? null };
}
