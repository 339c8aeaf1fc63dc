// The words and numbers of usage in the UI: costs, token counts, context fill, days.

import type { UsageBadge, UsageRow } from '../../daemon/contract/usage';

/** "$1.23", "<$0.01", "$0.40+" when some calls have no price, or "no price". */
export function costWords(cost: number | null, partial = false): string {
  if (cost === null) return 'no price';
  const money = cost > 0 && cost < 0.01 ? '<$0.01' : `$${cost.toFixed(2)}`;
  return partial ? `${money}+` : money;
}

/** 950, 12.3k, 4.5M. */
export function tokenWords(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1_000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** How full the context is, as a width for its bar (0–100) and its tone. */
export function contextBar(fill: number | null): { percent: number; tone: 'ok' | 'busy' | 'danger' } | null {
  if (fill === null) return null;
  const percent = Math.round(Math.min(1, Math.max(0, fill)) * 100);
  return { percent, tone: fill >= 0.9 ? 'danger' : fill >= 0.7 ? 'busy' : 'ok' };
}

/** A tab's badge: cost first, then context, in words a screen reader says well. */
export function badgeWords(usage: UsageBadge): string {
  const context = usage.contextFill === null ? '' : `, context ${Math.round(usage.contextFill * 100)}% full`;
  return `${costWords(usage.cost, usage.partial)}, ${tokenWords(usage.tokens)} tokens${context}`;
}

/** The last `days` local days, oldest first, each with its row (or an empty one). */
export function lastDays(rows: UsageRow[], days: number, now: number): { day: string; row: UsageRow | null }[] {
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const out: { day: string; row: UsageRow | null }[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(now);
    d.setDate(d.getDate() - i);
    const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    out.push({ day, row: byKey.get(day) ?? null });
  }
  return out;
}

export const totalTokens = (t: { input: number; output: number; cacheWrite: number; cacheRead: number }) => t.input + t.output + t.cacheWrite + t.cacheRead;
