const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses "8h", "1h30m", "500ms", "off" (→ null, meaning never) or a number of seconds.
 * Returns undefined when the text is not a duration.
 */
export function parseDuration(value: unknown): number | null | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'off' || text === 'never') return null;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (UNITS[unit as string] ?? 0);
  }
  return total;
}
