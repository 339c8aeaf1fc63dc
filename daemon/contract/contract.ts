// What a client (renderer, desktop app, CLI, MCP, script) may do: the methods of the table in
// methods.ts, plus live streams. The engine implements the methods; each transport (IPC,
// HTTP/WebSocket, in-process) is made from the table.

import type { Contract } from './methods';
import type { ErrorShape } from './errors';
import type { HostChange } from './hosts';
import type { SessionChange, TerminalView } from './session';

export { METHODS, METHOD_NAMES, parseRequest, type Contract, type Method, type Request, type Response, type Scope } from './methods';

export { PROTOCOL_VERSION, WS_PROTOCOL } from './routes';

/** A viewer's connection to a session's terminal. */
export interface TerminalStream {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Tells the source how many bytes of output the viewer has put on its screen. */
  ack(bytes: number): void;
  close(): void;
}

export interface StreamHandlers {
  /** Output, as UTF-8 bytes. */
  onData(data: Uint8Array): void;
  /** The stream ended: the session stopped, or it was refused (error set). */
  onClosed(info: { reason: string; error?: ErrorShape }): void;
}

/** Everything a client (the renderer) uses: the contract, plus streams and change events. */
export interface ClientApi extends Contract {
  openStream(id: string, view: TerminalView, handlers: StreamHandlers): TerminalStream;
  /** Session changes; the first call brings every session. Returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void;
  /** The state of each remote host's link, as it changes; absent where the transport does not carry it. */
  onHostChange?(listener: (change: HostChange) => void): () => void;
  /**
   * A remote host's own client (its sessions by their bare ids), where the transport carries
   * hosts: the desktop's preload. A browser page makes its own, on the proxy's base.
   */
  hostClient?(host: string): ClientApi;
  /**
   * The link to this machine's daemon, as it changes: `up`, `down` (tried again), or `refused`
   * (401: the credential no longer opens it). Absent where the link is not the page's to watch (the
   * desktop app's main process keeps its daemon).
   */
  onLink?(listener: (state: LinkState) => void): () => void;
  /** Requests from the desktop shell (a tray item, a corral:// link); absent in a browser. */
  onAppRequest?(listener: (request: AppRequest) => void): () => void;
}

export type LinkState = 'up' | 'down' | 'refused';

export type AppRequest = { kind: 'focus-session'; id: string } | { kind: 'new-session' };
