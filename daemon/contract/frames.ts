// The messages of the live streams, typed once for every end: the WebSocket server and its
// clients (browser, desktop app through a serve, `corral attach`), and the desktop app's
// MessagePort between its main process and its page.

import type { ErrorShape } from './errors';
import type { HostChange, HostView } from './hosts';
import type { SessionChange, SessionView } from './session';

/** A session's terminal stream, server → viewer (text frames; output itself comes as binary frames). */
export type TerminalFrame =
  | { type: 'hello'; protocol: number; session: SessionView }
  | { type: 'error'; error: ErrorShape }
  | { type: 'closed'; reason: string };

/** The events stream, server → client: sessions, and the state of each remote host's link. */
export type EventsFrame = { type: 'hello'; protocol: number; sessions: SessionView[]; hosts?: HostView[] } | ({ type: 'change' } & SessionChange) | ({ type: 'host' } & HostChange);

/** A viewer → its session's terminal. `ack`: bytes of output the viewer has written to its screen. */
export type ViewerFrame = { type: 'input'; data: string } | { type: 'resize'; cols: number; rows: number } | { type: 'ack'; bytes: number };

/** The desktop app's page ↔ main process, over a stream's MessagePort (output as its UTF-8 bytes). */
export type PortFrame = { type: 'data'; data: Uint8Array } | { type: 'closed'; reason: string; error?: ErrorShape };
export type PagePortFrame = ViewerFrame | { type: 'close' };

export const COLS_MAX = 1000;
export const ROWS_MAX = 500;

/** What a viewer sent, checked; or why it is refused. */
export function parseViewerFrame(value: unknown): ViewerFrame | { error: string } {
  const m = value as Record<string, unknown> | null;
  if (m?.type === 'input' && typeof m.data === 'string') return { type: 'input', data: m.data };
  if (m?.type === 'ack') {
    if (Number.isFinite(m.bytes) && (m.bytes as number) >= 0) return { type: 'ack', bytes: m.bytes as number };
    // Protocol 1 counted characters ("chars"): say what changed rather than "unknown message".
    return { error: 'ack: bytes must be a number ≥ 0 (the bytes of output written; protocol 2)' };
  }
  if (m?.type === 'resize' && Number.isInteger(m.cols) && Number.isInteger(m.rows)) {
    const cols = m.cols as number;
    const rows = m.rows as number;
    if (cols >= 2 && cols <= COLS_MAX && rows >= 2 && rows <= ROWS_MAX) return { type: 'resize', cols, rows };
    return { error: `resize: cols must be 2 to ${COLS_MAX} and rows 2 to ${ROWS_MAX}` };
  }
  return { error: `unknown message ${JSON.stringify(m?.type ?? null)}: expected input, resize or ack` };
}
