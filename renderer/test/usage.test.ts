// The usage words and numbers the UI shows.

import { describe, expect, it } from 'vitest';
import { badgeWords, contextBar, costWords, lastDays, tokenWords } from '../lib/usage';

const row = (key: string, input: number) => ({ key, tokens: { input, output: 0, cacheWrite: 0, cacheRead: 0 }, calls: 1, models: [], cost: 0, unpricedModels: [] });

describe('usage in words', () => {
  it('a cost is dollars, a sliver is "<$0.01", a partial one says so, and none is "no price"', () => {
    expect(costWords(1.234)).toBe('$1.23');
    expect(costWords(0)).toBe('$0.00');
    expect(costWords(0.004)).toBe('<$0.01');
    expect(costWords(0.4, true)).toBe('$0.40+');
    expect(costWords(null)).toBe('no price');
  });

  it('tokens read short', () => {
    expect([950, 1_234, 12_345, 4_500_000].map(tokenWords)).toEqual(['950', '1.2k', '12k', '4.5M']);
  });

  it("the context bar is the fill, capped at full, and turns amber then red", () => {
    expect(contextBar(null)).toBeNull();
    expect(contextBar(0.25)).toEqual({ percent: 25, tone: 'ok' });
    expect(contextBar(0.75)).toEqual({ percent: 75, tone: 'busy' });
    expect(contextBar(1.3)).toEqual({ percent: 100, tone: 'danger' });
    expect(badgeWords({ tokens: 13_500, cost: 0.021, partial: false, contextFill: 0.065 })).toBe('$0.02, 14k tokens, context 7% full');
  });

  it('the chart has every one of the last days, oldest first, empty ones too', () => {
    const now = new Date(2026, 11, 1, 15, 0).getTime();
    const days = lastDays([row('2026-11-29', 5), row('2026-12-01', 7)], 3, now);
    expect(days.map((d) => [d.day, d.row?.tokens.input ?? null])).toEqual([
      ['2026-11-29', 5],
      ['2026-11-30', null],
      ['2026-12-01', 7],
    ]);
  });
});
