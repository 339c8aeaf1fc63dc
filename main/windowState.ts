// The window's size, position and maximised state, kept between runs; a position off every
// display (a monitor unplugged since) is dropped so the window never opens out of sight.

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_STATE: WindowState = { width: 1200, height: 800, maximized: false };

export function restoreWindowState(saved: unknown, displays: readonly Rect[]): WindowState {
  if (!saved || typeof saved !== 'object') return { ...DEFAULT_STATE };
  const s = saved as Record<string, unknown>;
  const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (!num(s.width) || !num(s.height)) return { ...DEFAULT_STATE };
  const width = Math.max(400, Math.min(10_000, s.width as number));
  const height = Math.max(300, Math.min(10_000, s.height as number));
  const state: WindowState = { width, height, maximized: s.maximized === true };
  if (num(s.x) && num(s.y)) {
    const x = s.x as number;
    const y = s.y as number;
    // Visible enough: at least 100 × 50 px of its top edge on some display.
    const visible = displays.some((d) => x + width - 100 >= d.x && x + 100 <= d.x + d.width && y >= d.y && y + 50 <= d.y + d.height);
    if (visible) Object.assign(state, { x, y });
  }
  return state;
}
