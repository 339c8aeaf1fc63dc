// The contract over `corral serve`'s API: HTTP for calls, WebSockets for terminal streams and
// session changes. The browser's renderer uses it, and so does the desktop app when a
// `corral serve` already holds the home (in Node, handed the `ws` package's WebSocket).

import type { ClientApi, LinkState, StreamHandlers, TerminalStream } from './contract';
import type { ErrorShape } from './errors';
import type { EventsFrame, TerminalFrame, ViewerFrame } from './frames';
import { httpClient, type HttpCall } from './httpClient';
// The table's routes only: a page that loads this loads no schemas (methods.ts) and no zod.
import { STREAMS, streamPath, WS_PROTOCOL } from './routes';
import type { HostChange } from './hosts';
import type { SessionChange, SessionView } from './session';

/** The part of a WebSocket this uses: the browser's, or the `ws` package's in Node. */
interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
  /** Set, so that `ws` in Node does not throw a refused handshake: its close follows and is what is acted on. */
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number): void;
}
export type SocketClass = new (url: string, protocols: string[]) => SocketLike;
const CONNECTING = 0;
const OPEN = 1;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: ErrorShape,
  ) {
    super(error.message);
  }
}

export interface WebTransport extends ClientApi {
  /**
   * Called when the events socket (re)connects, with its hello's list: the list as of the
   * changes that follow it (none missed, none older), which replaces the caller's.
   */
  onReconnect(listener: (sessions: SessionView[]) => void): () => void;
  /**
   * The link as the events socket finds it (only while session changes are listened to): `up`
   * once it says hello; `down` when it closed and the daemon does not answer (tried again, more
   * slowly each time); `refused` when the daemon answers but no longer takes the credential (a
   * tab's dies with its daemon): no more tries.
   */
  onLink(listener: (state: LinkState) => void): () => void;
}

export function createWebTransport(base: string, token: string, Socket: SocketClass = (globalThis as unknown as { WebSocket: SocketClass }).WebSocket): WebTransport {
  const wsBase = base.replace(/^http/, 'ws');

  const send = async ({ verb, path, body }: HttpCall): Promise<unknown> => {
    const res = await fetch(base + path, {
      method: verb,
      // A redirect would carry the credential and the body elsewhere: the contract has none.
      redirect: 'error',
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const value = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new ApiError(res.status, value?.error ?? { code: 'internal', message: `${verb} ${path}: ${res.status}` });
    return value;
  };

  const changeListeners = new Set<(change: SessionChange) => void>();
  const hostListeners = new Set<(change: HostChange) => void>();
  const reconnectListeners = new Set<(sessions: SessionView[]) => void>();
  const linkListeners = new Set<(state: LinkState) => void>();
  let link: LinkState | null = null;
  const setLink = (state: LinkState) => {
    if (state === link) return;
    link = state;
    linkListeners.forEach((l) => l(state));
  };
  const calls = httpClient(send);
  let events: SocketLike | null = null;
  let retry = 500;
  /** Hellos so far: a check of the link answered after a later hello says nothing about it now. */
  let hellos = 0;
  const connectEvents = () => {
    // Refused is final where someone acts on it (a new credential); elsewhere it is tried again.
    if (events || changeListeners.size === 0 || (link === 'refused' && linkListeners.size > 0)) return;
    const ws = new Socket(wsBase + STREAMS.events.path, [WS_PROTOCOL, `bearer.${token}`]);
    events = ws;
    ws.onerror = () => {};
    ws.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as EventsFrame;
      if (data.type === 'hello') {
        retry = 500;
        hellos++;
        setLink('up');
        reconnectListeners.forEach((l) => l(data.sessions));
        for (const host of data.hosts ?? []) hostListeners.forEach((l) => l({ kind: 'updated', host }));
      } else if (data.type === 'host') {
        const { type: _type, ...change } = data;
        hostListeners.forEach((l) => l(change));
      } else if (data.type === 'change') {
        const { type: _type, ...change } = data;
        changeListeners.forEach((l) => l(change as SessionChange));
      }
    };
    ws.onclose = () => {
      events = null;
      if (changeListeners.size === 0) return;
      // Why: a socket refused at its handshake says nothing more, so one call asks. A daemon
      // that answers it (the socket dropped alone) is tried again without a word. Only a 401 is
      // a credential gone: a 403 says what this one may not do, and is no reason to drop it.
      const asked = hellos;
      calls.listClis({}).then(
        () => {},
        (err: unknown) => hellos === asked && setLink(err instanceof ApiError && err.status === 401 ? 'refused' : 'down'),
      );
      setTimeout(connectEvents, retry);
      retry = Math.min(retry * 2, 10_000);
    };
  };

  return {
    ...calls,

    onSessionChange(listener) {
      changeListeners.add(listener);
      connectEvents();
      return () => {
        changeListeners.delete(listener);
        if (changeListeners.size === 0) events?.close();
      };
    },
    onHostChange(listener) {
      hostListeners.add(listener);
      return () => hostListeners.delete(listener);
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    onLink(listener) {
      linkListeners.add(listener);
      return () => linkListeners.delete(listener);
    },

    openStream(sid, view, handlers: StreamHandlers): TerminalStream {
      const colors = view.colors ? `&fg=${encodeURIComponent(view.colors.fg)}&bg=${encodeURIComponent(view.colors.bg)}` : '';
      const history = view.history === undefined ? '' : `&history=${view.history}`;
      const inUse = view.inUse ? '&inUse=1' : '';
      const ws = new Socket(`${wsBase}${streamPath('terminal', sid)}?cols=${view.cols}&rows=${view.rows}${colors}${history}${inUse}`, [WS_PROTOCOL, `bearer.${token}`]);
      ws.binaryType = 'arraybuffer';
      ws.onerror = () => {};
      let error: ErrorShape | undefined;
      let reason = 'disconnected';
      const queue: string[] = [];
      const sendFrame = (message: ViewerFrame) => {
        const text = JSON.stringify(message);
        if (ws.readyState === OPEN) ws.send(text);
        else if (ws.readyState === CONNECTING) queue.push(text);
      };
      ws.onopen = () => queue.splice(0).forEach((text) => ws.send(text));
      ws.onmessage = (message) => {
        if (message.data instanceof ArrayBuffer) return handlers.onData(new Uint8Array(message.data));
        const data = JSON.parse(String(message.data)) as TerminalFrame;
        if (data.type === 'error') {
          error = data.error;
          reason = data.error.message;
        } else if (data.type === 'closed') reason = data.reason;
      };
      ws.onclose = (event) => handlers.onClosed({ reason: event.code === 1000 ? reason : error ? reason : 'disconnected', ...(error && event.code !== 1000 ? { error } : {}) });
      return {
        write: (data) => sendFrame({ type: 'input', data }),
        resize: (cols, rows) => sendFrame({ type: 'resize', cols, rows }),
        ack: (bytes) => sendFrame({ type: 'ack', bytes }),
        close: () => ws.close(1000),
      };
    },
  };
}
