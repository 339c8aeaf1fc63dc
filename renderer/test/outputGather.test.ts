// A stream's output on its way to xterm.js: written as it comes, gathered under a flood.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOOD_BYTES, FLOOD_WINDOW_MS, GATHER_MAX, GATHER_MS, OutputGather } from '../terminal/outputGather';

const frame = (size: number, fill = 0x61) => new Uint8Array(size).fill(fill);

describe('output on its way to the screen', () => {
  let writes: Uint8Array[];
  let gather: OutputGather;
  beforeEach(() => {
    vi.useFakeTimers();
    writes = [];
    gather = new OutputGather((data) => writes.push(data));
  });
  afterEach(() => vi.useRealTimers());

  it('is written frame by frame while it is not a flood', () => {
    for (let i = 0; i < 10; i++) gather.take(frame(1_000), i * 20, false);
    expect(writes.map((w) => w.byteLength)).toEqual(Array(10).fill(1_000));
  });

  it('under a flood is gathered into one write, in order, until GATHER_MS after its first frame', () => {
    // FLOOD_BYTES within a window: the flood begins with the frame after them.
    const first = Math.ceil(FLOOD_BYTES / 8_000);
    for (let i = 0; i < first; i++) gather.take(frame(8_000), i, false);
    expect(writes).toHaveLength(first);
    gather.take(frame(8_000, 0x62), first, false);
    gather.take(frame(8_000, 0x63), first + 1, false);
    expect(writes).toHaveLength(first);
    vi.advanceTimersByTime(GATHER_MS);
    expect(writes).toHaveLength(first + 1);
    expect([...writes.at(-1)!.subarray(7_999, 8_001)]).toEqual([0x62, 0x63]);
    expect(writes.at(-1)!.byteLength).toBe(16_000);
  });

  it('is gathered when a flood comes in pieces spread out (a loaded page receives one 4 KB read every 10 ms)', () => {
    for (let i = 0; i < 50; i++) {
      gather.take(frame(4_096), i * 10, false);
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(GATHER_MS);
    expect(writes.reduce((sum, w) => sum + w.byteLength, 0)).toBe(50 * 4_096);
    expect(writes.length).toBeLessThan(20);
  });

  it('under a flood is written as soon as GATHER_MAX bytes are gathered', () => {
    gather.take(frame(FLOOD_BYTES), 0, false);
    for (let i = 1; i * 16_384 <= GATHER_MAX; i++) gather.take(frame(16_384), i, false);
    expect(writes.map((w) => w.byteLength)).toEqual([FLOOD_BYTES, GATHER_MAX]);
  });

  it('is written at once when a keystroke may be echoed in it, after what was gathered', () => {
    gather.take(frame(FLOOD_BYTES), 0, false);
    gather.take(frame(5_000, 0x62), 1, false);
    expect(writes).toHaveLength(1);
    gather.take(frame(1, 0x63), 2, true);
    expect(writes.map((w) => w[0])).toEqual([0x61, 0x62, 0x63]);
  });

  it('goes back to frame by frame once the flood has stopped', () => {
    gather.take(frame(FLOOD_BYTES), 0, false);
    gather.take(frame(1_000), 1, false);
    vi.advanceTimersByTime(GATHER_MS);
    gather.take(frame(10), 2 * FLOOD_WINDOW_MS + 1, false);
    expect(writes.map((w) => w.byteLength)).toEqual([FLOOD_BYTES, 1_000, 10]);
  });

  it('is dropped with the terminal', () => {
    gather.take(frame(FLOOD_BYTES), 0, false);
    gather.take(frame(1_000), 1, false);
    gather.dispose();
    vi.advanceTimersByTime(GATHER_MS);
    expect(writes).toHaveLength(1);
  });
});
