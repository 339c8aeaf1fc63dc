// Two costs xterm.js 6.0 puts on a new terminal's first output, on the page's main thread in a
// switch to a tab without a live terminal (bench/README.md, "A new terminal's first frame"):
//
// - its viewport syncs the scrollbar at every line that scrolls (the slider's DOM written, a timer
//   to fade it set again), besides the sync it queues for its next frame, so the 500 lines of
//   history a terminal is given first cost 500 syncs;
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
  _sync(ydisp?: number): void;
}

interface Core {
  _viewport?: Viewport;
  _renderService?: { _renderer?: { value?: { _widthCache?: WidthCache } } };
}

/** How often each took effect (what the page's end-to-end tests look at: each needs its shape found). */
export const internalsUsed = { widthsShared: 0, scrollbarsHeld: 0 };

const core = (term: Terminal): Core | undefined => (term as unknown as { _core?: Core })._core;

function widthCache(term: Terminal): WidthCache | null {
  const cache = core(term)?._renderService?._renderer?.value?._widthCache;
  return cache && cache._flat instanceof Float32Array && cache._holey instanceof Map ? cache : null;
}

function viewport(term: Terminal): Viewport | null {
  const found = core(term)?._viewport;
  return found && typeof found._sync === 'function' ? found : null;
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

/**
 * Holds the terminal's scrollbar still while `write` runs: a line that scrolls then asks for one
 * sync of the scrollbar after it, not one each. `write` calls `done` once its output is parsed;
 * the scrollbar is synced then, once. Where the viewport is not as expected, `write` runs as is.
 */
export function withScrollbarHeld(term: Terminal, write: (done: () => void) => void): void {
  const held = viewport(term);
  if (!held) return write(() => {});
  const own = Object.getOwnPropertyDescriptor(held, '_sync');
  const sync = held._sync;
  let wanted = false;
  // Only the per-line sync (no position given) waits: one with a position is the person's scroll.
  held._sync = (ydisp?: number) => {
    if (ydisp === undefined) wanted = true;
    else sync.call(held, ydisp);
  };
  internalsUsed.scrollbarsHeld++;
  let ended = false;
  write(() => {
    if (ended) return;
    ended = true;
    if (own) Object.defineProperty(held, '_sync', own);
    else delete (held as Partial<Viewport>)._sync;
    if (wanted) held._sync();
  });
}
