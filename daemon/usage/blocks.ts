// Claude's rolling 5-hour usage window, counted as ccusage counts its "blocks": a block starts
// at its first call's hour (floored, UTC) and lasts 5 hours; a call after it ends, or after 5
// hours without one, starts the next. Claude Code does not write its plan's limits down, so
// this is the window's use, not a percentage of a limit.

import type { Turn } from './transcripts';

export const BLOCK_MS = 5 * 3_600_000;

export interface Block {
  start: number;
  end: number;
  /** The block's calls, in time order. */
  turns: Turn[];
}

export function blocksOf(turns: readonly Turn[]): Block[] {
  const sorted = turns.filter((t) => t.at > 0).sort((a, b) => a.at - b.at);
  const blocks: Block[] = [];
  let current: Block | null = null;
  for (const turn of sorted) {
    const last = current?.turns.at(-1);
    if (!current || turn.at - current.start > BLOCK_MS || turn.at - last!.at > BLOCK_MS) {
      const start = Math.floor(turn.at / 3_600_000) * 3_600_000;
      current = { start, end: start + BLOCK_MS, turns: [] };
      blocks.push(current);
    }
    current.turns.push(turn);
  }
  return blocks;
}

/** The block still open at `now`: its end not reached and its last call less than 5 hours ago. */
export function currentBlock(turns: readonly Turn[], now: number): Block | null {
  const last = blocksOf(turns).at(-1);
  return last && now < last.end && now - last.turns.at(-1)!.at < BLOCK_MS ? last : null;
}
