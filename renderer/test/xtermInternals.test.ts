// xterm.js's per-line scrollbar syncs, made one a frame (renderer/terminal/xtermInternals.ts).

import type { Terminal } from '@xterm/xterm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { internalsUsed, scrollbarByFrame } from '../terminal/xtermInternals';

/** A terminal with the viewport xterm.js 6.0 has (`_sync(ydisp?)`, `scrollLines`, `scrollToLine`), each call noted in order. */
function fakeTerminal() {
  const synced: (number | undefined)[][] = [];
  const calls: string[] = [];
  const viewport = {
    _sync(...ydisp: [] | [number | undefined]) {
      synced.push(ydisp);
      calls.push(`sync${ydisp.length ? ` ${ydisp[0]}` : ''}`);
    },
    scrollLines(disp: number) {
      calls.push(`scrollLines ${disp}`);
    },
    scrollToLine(line: number) {
      calls.push(`scrollToLine ${line}`);
    },
  };
  const element = new EventTarget();
  return { term: { _core: { _viewport: viewport }, element } as unknown as Terminal, viewport, synced, calls, element };
}

describe("a terminal's scrollbar synced once a frame", () => {
  let frames: Map<number, () => void>;
  let next: number;
  const runFrame = () => {
    const due = [...frames.values()];
    frames.clear();
    for (const callback of due) callback();
  };
  beforeEach(() => {
    frames = new Map();
    next = 1;
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => (frames.set(next, callback), next++));
    vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id));
  });
  afterEach(() => vi.unstubAllGlobals());

  it('syncs the lines that scrolled in a frame once, at that frame', () => {
    const { term, viewport, synced } = fakeTerminal();
    const before = internalsUsed.scrollbarsByFrame;
    expect(scrollbarByFrame(term)).not.toBeNull();
    expect(internalsUsed.scrollbarsByFrame).toBe(before + 1);
    for (let i = 0; i < 500; i++) viewport._sync();
    expect(synced).toEqual([]);
    expect(frames.size).toBe(1);
    runFrame();
    expect(synced).toEqual([[]]);
    // The next frame's lines, once more; a frame with none syncs nothing.
    viewport._sync();
    runFrame();
    runFrame();
    expect(synced).toEqual([[], []]);
  });

  it('passes a sync that gives a position (a resize, a scroll) at once', () => {
    const { term, viewport, synced } = fakeTerminal();
    scrollbarByFrame(term);
    viewport._sync(42);
    viewport._sync(undefined);
    expect(synced).toEqual([[42], [undefined]]);
    expect(frames.size).toBe(0);
  });

  it('syncs at once when asked (a first frame parsed), and its frame then does nothing', () => {
    const { term, viewport, synced } = fakeTerminal();
    const scrollbar = scrollbarByFrame(term)!;
    scrollbar.firstFrame();
    expect(synced).toEqual([]);
    viewport._sync();
    viewport._sync();
    scrollbar.firstFrame();
    expect(synced).toEqual([[]]);
    expect(frames.size).toBe(0);
    runFrame();
    expect(synced).toEqual([[]]);
  });

  it("syncs a connection's first frame at once, and counts it", () => {
    const { term, viewport, synced } = fakeTerminal();
    const scrollbar = scrollbarByFrame(term)!;
    const before = internalsUsed.firstFramesSynced;
    viewport._sync();
    scrollbar.firstFrame();
    expect(synced).toEqual([[]]);
    expect(internalsUsed.firstFramesSynced).toBe(before + 1);
  });

  it('drops a sync still waiting when the terminal goes', () => {
    const { term, viewport, synced } = fakeTerminal();
    const scrollbar = scrollbarByFrame(term)!;
    viewport._sync();
    scrollbar.dispose();
    runFrame();
    expect(synced).toEqual([]);
  });

  it("syncs first what waits when xterm.js scrolls, from the scrollbar's place: to a line, by lines (a typed key's scroll to the bottom, a search's match)", () => {
    const { term, viewport, calls } = fakeTerminal();
    scrollbarByFrame(term);
    viewport._sync();
    viewport.scrollLines(-3);
    viewport._sync();
    viewport.scrollToLine(120);
    viewport.scrollLines(2);
    expect(calls).toEqual(['sync', 'scrollLines -3', 'sync', 'scrollToLine 120', 'scrollLines 2']);
    runFrame();
    expect(calls).toHaveLength(5);
  });

  it('syncs first what waits when the wheel turns or a press comes in the terminal (the scrollbar takes them from its own place)', () => {
    const { term, viewport, synced, element } = fakeTerminal();
    const scrollbar = scrollbarByFrame(term)!;
    viewport._sync();
    element.dispatchEvent(new Event('wheel'));
    expect(synced).toEqual([[]]);
    viewport._sync();
    element.dispatchEvent(new Event('pointerdown'));
    expect(synced).toEqual([[], []]);
    // Gone with the terminal: nothing is synced for it any more.
    viewport._sync();
    scrollbar.dispose();
    element.dispatchEvent(new Event('wheel'));
    runFrame();
    expect(synced).toEqual([[], []]);
  });

  it('leaves a terminal whose viewport is not as expected as it is', () => {
    expect(scrollbarByFrame({ _core: {} } as unknown as Terminal)).toBeNull();
    expect(scrollbarByFrame({ _core: { _viewport: { _sync: 1 } } } as unknown as Terminal)).toBeNull();
    expect(scrollbarByFrame({ _core: { _viewport: { _sync() {}, scrollLines() {} } } } as unknown as Terminal)).toBeNull();
  });
});
