// Two costs xterm.js 6.0 puts on the page's main thread (bench/README.md, "A new terminal's first
// frame", and "xterm.js's scrollbar at every line, in a flood"):
//
// - its viewport syncs the scrollbar at every line that scrolls (the slider's size and place
//   written, a timer to fade it set and cleared), so 500 lines of history cost 500 syncs, and a
//   flood a sync per line it prints, though the scrollbar is drawn once a frame;
// - its DOM renderer measures the width of each character the first time it draws it, with a
//   layout of its own, in every new terminal (xterm.js's WidthCache; its own comment asks for a
//   cache shared across terminals).
//
// Both reach into xterm.js's internals, which its public API does not offer: each looks for the
// shape it expects and does nothing when it is not there (another version, the WebGL renderer),
// and a browser test (e2e/scale.spec.ts, "a tab's new terminal takes the character widths")
// fails when an upgrade of xterm.js changed that shape.

import type { Terminal } from '@xterm/xterm';

interface WidthCache {
  _flat: Float32Array;
  _holey: Map<string, number> | undefined;
  _font: string;
  _fontSize: number;
  _weight: unknown;
  _weightBold: unknown;
}

interface Viewport {
  _sync(...ydisp: [] | [number | undefined]): void;
  scrollLines(disp: number): void;
  scrollToLine(line: number, disableSmoothScroll?: boolean): void;
}

interface Core {
  _viewport?: Viewport;
  _renderService?: { _renderer?: { value?: { _widthCache?: WidthCache } } };
}

/** How often each took effect (what the page's end-to-end tests look at: each needs its shape found). */
export const internalsUsed = { widthsShared: 0, scrollbarsByFrame: 0, firstFramesSynced: 0 };

const core = (term: Terminal): Core | undefined => (term as unknown as { _core?: Core })._core;

function widthCache(term: Terminal): WidthCache | null {
  const cache = core(term)?._renderService?._renderer?.value?._widthCache;
  return cache && cache._flat instanceof Float32Array && cache._holey instanceof Map ? cache : null;
}

function viewport(term: Terminal): Viewport | null {
  const found = core(term)?._viewport;
  return found && typeof found._sync === 'function' && typeof found.scrollLines === 'function' && typeof found.scrollToLine === 'function' ? found : null;
}

/**
 * Gives `to` the character widths `from` has measured, when both draw with the DOM renderer in
 * the same font: what `to` would measure is the same. True when it did.
 */
export function shareWidths(from: Terminal, to: Terminal): boolean {
  const source = widthCache(from);
  const target = widthCache(to);
  if (!source || !target || source === target) return false;
  if (source._font !== target._font || source._fontSize !== target._fontSize || source._weight !== target._weight || source._weightBold !== target._weightBold) return false;
  target._flat.set(source._flat);
  target._holey = new Map(source._holey);
  internalsUsed.widthsShared++;
  return true;
}

/** A terminal's scrollbar, synced once a frame at most for the lines that scroll (see scrollbarByFrame). */
export interface FrameScrollbar {
  /**
   * Syncs now what the lines of a connection's first frame, just parsed, ask for: before the
   * viewport is moved (counted: the browser tests look).
   */
  firstFrame(): void;
  /** Drops a sync still waiting for its frame (the terminal goes). */
  dispose(): void;
}

/**
 * Makes the scrollbar syncs that xterm.js asks for at each line that scrolls one sync at the next
 * animation frame (or at `firstFrame`), the frame the scrollbar is drawn in. Syncs that give a position
 * (its queued ones: a resize's) go at once, as before. A scroll reads the scrollbar's place and
 * height (xterm.js's `scrollLines`, under scrolling to a line, to the bottom as a key is typed,
 * and a search's match; the wheel and the slider its own), so a sync still waiting goes first:
 * before those calls, and before a wheel turn or a press in the terminal reaches it. Null where the
 * viewport is not as expected: then every line syncs, as xterm.js does.
 */
export function scrollbarByFrame(term: Terminal): FrameScrollbar | null {
  const found = viewport(term);
  if (!found) return null;
  const { _sync: sync, scrollLines, scrollToLine } = found;
  let frame: number | null = null;
  /** Drops the sync waiting for its frame; true if there was one. */
  const cancel = () => {
    if (frame === null) return false;
    cancelAnimationFrame(frame);
    frame = null;
    return true;
  };
  const now = () => {
    if (cancel()) sync.call(found);
  };
  found._sync = (...ydisp: [] | [number | undefined]) => {
    // A line's sync is xterm.js's `_sync()`, with no argument; its queued ones pass one.
    if (ydisp.length > 0) return sync.apply(found, ydisp);
    frame ??= requestAnimationFrame(now);
  };
  found.scrollLines = (disp) => {
    now();
    scrollLines.call(found, disp);
  };
  found.scrollToLine = (line, disableSmoothScroll) => {
    now();
    scrollToLine.call(found, line, disableSmoothScroll);
  };
  // Captured at the terminal's element, before the scrollbar (inside it) takes them.
  const listening = { capture: true, passive: true } as const;
  const events = ['wheel', 'pointerdown'] as const;
  for (const event of events) term.element?.addEventListener(event, now, listening);
  internalsUsed.scrollbarsByFrame++;
  return {
    firstFrame: () => {
      internalsUsed.firstFramesSynced++;
      now();
    },
    dispose: () => {
      cancel();
      for (const event of events) term.element?.removeEventListener(event, now, listening);
    },
  };
}
