// Every method a client (renderer, CLI, script) may call on the engine, stated once.
// The engine implements it; each transport (IPC, HTTP/WebSocket) is a thin adapter.

import type { ErrorShape } from './errors';
import type { PathPreview } from './files';
import type { CliView, Receipt, SessionChange, SessionEvent, SessionView, TerminalView } from './session';

export const PROTOCOL_VERSION = 1;
/** The WebSocket subprotocol; a browser adds its token as a second one, "bearer.<token>". */
export const WS_PROTOCOL = 'corral.v1';

export interface Contract {
  listClis(): Promise<CliView[]>;
  listSessions(): Promise<SessionView[]>;
  getSession(req: { id: string }): Promise<SessionView>;
  /** Creates the session and starts it. */
  createSession(req: { cli: string; cwd: string; name?: string }): Promise<SessionView>;
  /** Starts or resumes; a no-op on a session that is already up. */
  startSession(req: { id: string }): Promise<{ resumed: boolean; session: SessionView }>;
  stopSession(req: { id: string }): Promise<SessionView>;
  /** Drops the resume key so the next start is clean. */
  forgetKey(req: { id: string }): Promise<SessionView>;
  removeSession(req: { id: string; force?: boolean }): Promise<void>;
  renameSession(req: { id: string; name: string }): Promise<SessionView>;
  /** Types `data`; with `submit`, Enter follows as its own keystroke once the agent took the text. */
  write(req: { id: string; data: string; submit?: boolean }): Promise<void>;
  resize(req: { id: string; cols: number; rows: number }): Promise<void>;
  screen(req: { id: string; lines?: number }): Promise<{ text: string }>;
  events(req: { id: string }): Promise<SessionEvent[]>;
  /** The newest receipt, or null when the session never ended a process. */
  receipt(req: { id: string }): Promise<Receipt | null>;
  /** Puts the sessions in this order (the tab order); ids not named keep their place after. */
  reorderSessions(req: { ids: string[] }): Promise<SessionView[]>;
  /** Stops it if running (its key stays) and takes it out of the tab strip; nothing is deleted. */
  archiveSession(req: { id: string }): Promise<SessionView>;
  /** Brings an archived session back to the tab strip, stopped. */
  restoreSession(req: { id: string }): Promise<SessionView>;
  /** What a path printed in the session's terminal is, fenced to its folder and the temp folder. */
  previewPath(req: { id: string; path: string }): Promise<PathPreview>;
  /** Saves edited text over an existing file, under the same fence; `version` comes from the preview. */
  savePath(req: { id: string; path: string; text: string; version: string }): Promise<{ path: string; bytes: number; version: string }>;
  /** Whether a path can be a session's folder, before anything is created. */
  checkFolder(req: { path: string }): Promise<{ ok: true; path: string } | { ok: false; error: ErrorShape }>;
}

/** A viewer's connection to a session's terminal. */
export interface TerminalStream {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Tells the source how many characters the viewer has put on its screen. */
  ack(chars: number): void;
  close(): void;
}

export interface StreamHandlers {
  onData(data: string): void;
  /** The stream ended: the session stopped, or it was refused (error set). */
  onClosed(info: { reason: string; error?: ErrorShape }): void;
}

/** Everything a client (the renderer) uses: the contract, plus streams and change events. */
export interface ClientApi extends Contract {
  openStream(id: string, view: TerminalView, handlers: StreamHandlers): TerminalStream;
  /** Session changes; the first call brings every session. Returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void;
  /** Requests from the desktop shell (a tray item, a corral:// link); absent in a browser. */
  onAppRequest?(listener: (request: AppRequest) => void): () => void;
}

export type AppRequest = { kind: 'focus-session'; id: string } | { kind: 'new-session' };

export type Method = keyof Contract;
export type Request<M extends Method> = Parameters<Contract[M]>[0];
export type Response<M extends Method> = Awaited<ReturnType<Contract[M]>>;
