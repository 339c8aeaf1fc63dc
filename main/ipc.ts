// The IPC adapter of the contract: one handler per method, registered from one table that the
// type checker holds to the contract (a missing or misspelled method fails the build). Every
// handler first checks that the sender is our own window's main frame.

import type { ClientApi, Method, Request, Response } from '../daemon/contract/contract';
import type { ErrorShape, Reply } from '../daemon/contract/errors';

export const CHANNEL = (method: Method) => `corral:${method}`;
export const STREAM_OPEN = 'corral:open-stream';
export const STREAM_PORT = 'corral:stream-port';
export const CHANGES = 'corral:change';

type Handler<M extends Method> = (api: ClientApi, req: Request<M>) => Promise<Response<M>>;

export const HANDLERS = {
  listClis: (api) => api.listClis(),
  listSessions: (api) => api.listSessions(),
  getSession: (api, req) => api.getSession(req),
  createSession: (api, req) => api.createSession(req),
  startSession: (api, req) => api.startSession(req),
  stopSession: (api, req) => api.stopSession(req),
  forgetKey: (api, req) => api.forgetKey(req),
  removeSession: (api, req) => api.removeSession(req),
  renameSession: (api, req) => api.renameSession(req),
  write: (api, req) => api.write(req),
  resize: (api, req) => api.resize(req),
  screen: (api, req) => api.screen(req),
  events: (api, req) => api.events(req),
  receipt: (api, req) => api.receipt(req),
  reorderSessions: (api, req) => api.reorderSessions(req),
  checkFolder: (api, req) => api.checkFolder(req),
  archiveSession: (api, req) => api.archiveSession(req),
  restoreSession: (api, req) => api.restoreSession(req),
  previewPath: (api, req) => api.previewPath(req),
  savePath: (api, req) => api.savePath(req),
} satisfies { [M in Method]: Handler<M> };

/** The few parts of Electron's IpcMainInvokeEvent this needs (a fake in tests). */
export interface InvokeEvent {
  sender: unknown;
  senderFrame: { url: string } | null;
}
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, req: unknown) => Promise<unknown>): void;
}

export function registerIpc(ipcMain: IpcMainLike, api: () => ClientApi, trusted: (event: InvokeEvent) => boolean, log: (err: unknown) => void = console.error): void {
  for (const method of Object.keys(HANDLERS) as Method[]) {
    ipcMain.handle(CHANNEL(method), async (event, req): Promise<Reply<unknown>> => {
      if (!trusted(event)) return { ok: false, error: { code: 'forbidden', message: 'only Corral’s own window may call it' } };
      if (req !== undefined && (typeof req !== 'object' || req === null || Array.isArray(req))) {
        return { ok: false, error: { code: 'bad_request', message: `${method} takes one object` } };
      }
      try {
        const handler = HANDLERS[method] as (api: ClientApi, req: unknown) => Promise<unknown>;
        return { ok: true, value: await handler(api(), req ?? {}) };
      } catch (err) {
        const shape = errorShape(err);
        // Anything not expected at this boundary is a bug.
        if (shape.code === 'internal') log(err);
        return { ok: false, error: shape };
      }
    });
  }
}

function errorShape(err: unknown): ErrorShape {
  const e = err as { code?: unknown; message?: unknown; field?: unknown; toShape?: () => ErrorShape; error?: ErrorShape };
  if (typeof e?.toShape === 'function') return e.toShape();
  if (e?.error && typeof e.error.code === 'string') return e.error;
  return { code: 'internal', message: 'internal error (see the log)' };
}

/** Our window's own page: the renderer build, loaded from a file. */
export function isAppUrl(url: string, rendererIndexUrl: string): boolean {
  try {
    const got = new URL(url);
    const want = new URL(rendererIndexUrl);
    return got.protocol === want.protocol && got.pathname === want.pathname;
  } catch {
    return false;
  }
}
