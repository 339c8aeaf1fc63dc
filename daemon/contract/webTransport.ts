// The contract over `corral serve`'s API: HTTP for calls, WebSockets for terminal streams and
// session changes. The browser's renderer uses it, and so does the desktop app when a
// `corral serve` already holds the home (in Node, handed the `ws` package's WebSocket).

import { WS_PROTOCOL, type ClientApi, type StreamHandlers, type TerminalStream } from './contract';
import type { ErrorShape } from './errors';
import type { CliView, Receipt, SessionChange, SessionEvent, SessionView } from './session';

/** The part of a WebSocket this uses: the browser's, or the `ws` package's in Node. */
interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
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
  /** Called when the events socket (re)connects: the caller should reload the list. */
  onReconnect(listener: () => void): () => void;
}

export function createWebTransport(base: string, token: string, Socket: SocketClass = (globalThis as unknown as { WebSocket: SocketClass }).WebSocket): WebTransport {
  const wsBase = base.replace(/^http/, 'ws');

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const value = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new ApiError(res.status, value?.error ?? { code: 'internal', message: `${method} ${path}: ${res.status}` });
    return value as T;
  }
  const id = (value: string) => encodeURIComponent(value);

  const changeListeners = new Set<(change: SessionChange) => void>();
  const reconnectListeners = new Set<() => void>();
  let events: SocketLike | null = null;
  let retry = 500;
  const connectEvents = () => {
    if (events || changeListeners.size === 0) return;
    const ws = new Socket(`${wsBase}/api/events`, [WS_PROTOCOL, `bearer.${token}`]);
    events = ws;
    ws.onmessage = (message) => {
      const data = JSON.parse(String(message.data));
      if (data.type === 'hello') {
        retry = 500;
        reconnectListeners.forEach((l) => l());
      } else if (data.type === 'change') {
        const { type: _type, ...change } = data;
        changeListeners.forEach((l) => l(change as SessionChange));
      }
    };
    ws.onclose = () => {
      events = null;
      if (changeListeners.size === 0) return;
      setTimeout(connectEvents, retry);
      retry = Math.min(retry * 2, 10_000);
    };
  };

  return {
    listClis: async () => (await call<{ clis: CliView[] }>('GET', '/api/clis')).clis,
    listSessions: async () => (await call<{ sessions: SessionView[] }>('GET', '/api/sessions')).sessions,
    getSession: ({ id: sid }) => call('GET', `/api/sessions/${id(sid)}`),
    createSession: (req) => call('POST', '/api/sessions', req),
    startSession: ({ id: sid }) => call('POST', `/api/sessions/${id(sid)}/start`),
    stopSession: ({ id: sid }) => call('POST', `/api/sessions/${id(sid)}/stop`),
    forgetKey: ({ id: sid }) => call('POST', `/api/sessions/${id(sid)}/forget-key`),
    removeSession: async ({ id: sid, force }) => {
      await call('DELETE', `/api/sessions/${id(sid)}${force ? '?force=1' : ''}`);
    },
    renameSession: ({ id: sid, name }) => call('PATCH', `/api/sessions/${id(sid)}`, { name }),
    write: async ({ id: sid, data, submit }) => {
      await call('POST', `/api/sessions/${id(sid)}/input`, submit ? { text: data, submit } : { text: data });
    },
    resize: async () => {
      // Sizes travel on the stream of the viewer that has them.
    },
    screen: ({ id: sid, lines }) => call('GET', `/api/sessions/${id(sid)}/screen${lines ? `?lines=${lines}` : ''}`),
    events: async ({ id: sid }) => (await call<{ events: SessionEvent[] }>('GET', `/api/sessions/${id(sid)}/events`)).events,
    receipt: async ({ id: sid }) => (await call<{ receipt: Receipt | null }>('GET', `/api/sessions/${id(sid)}/receipt`)).receipt,
    reorderSessions: async ({ ids }) => (await call<{ sessions: SessionView[] }>('POST', '/api/sessions/order', { ids })).sessions,
    checkFolder: ({ path }) => call('GET', `/api/folder?path=${encodeURIComponent(path)}`),
    archiveSession: ({ id: sid }) => call('POST', `/api/sessions/${id(sid)}/archive`),
    restoreSession: ({ id: sid }) => call('POST', `/api/sessions/${id(sid)}/restore`),
    previewPath: ({ id: sid, path }) => call('GET', `/api/sessions/${id(sid)}/preview?path=${encodeURIComponent(path)}`),
    savePath: ({ id: sid, ...body }) => call('POST', `/api/sessions/${id(sid)}/save`, body),

    onSessionChange(listener) {
      changeListeners.add(listener);
      connectEvents();
      return () => {
        changeListeners.delete(listener);
        if (changeListeners.size === 0) events?.close();
      };
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },

    openStream(sid, view, handlers: StreamHandlers): TerminalStream {
      const colors = view.colors ? `&fg=${encodeURIComponent(view.colors.fg)}&bg=${encodeURIComponent(view.colors.bg)}` : '';
      const ws = new Socket(`${wsBase}/api/sessions/${id(sid)}/stream?cols=${view.cols}&rows=${view.rows}${colors}`, [WS_PROTOCOL, `bearer.${token}`]);
      ws.binaryType = 'arraybuffer';
      const decoder = new TextDecoder();
      let error: ErrorShape | undefined;
      let reason = 'disconnected';
      const queue: string[] = [];
      const send = (message: object) => {
        const text = JSON.stringify(message);
        if (ws.readyState === OPEN) ws.send(text);
        else if (ws.readyState === CONNECTING) queue.push(text);
      };
      ws.onopen = () => queue.splice(0).forEach((text) => ws.send(text));
      ws.onmessage = (message) => {
        if (message.data instanceof ArrayBuffer) {
          const text = decoder.decode(new Uint8Array(message.data), { stream: true });
          if (text) handlers.onData(text);
          return;
        }
        const data = JSON.parse(String(message.data));
        if (data.type === 'error') {
          error = data.error;
          reason = data.error.message;
        } else if (data.type === 'closed') reason = data.reason;
      };
      ws.onclose = (event) => handlers.onClosed({ reason: event.code === 1000 ? reason : error ? reason : 'disconnected', ...(error && event.code !== 1000 ? { error } : {}) });
      return {
        write: (data) => send({ type: 'input', data }),
        resize: (cols, rows) => send({ type: 'resize', cols, rows }),
        ack: (chars) => send({ type: 'ack', chars }),
        close: () => ws.close(1000),
      };
    },
  };
}
