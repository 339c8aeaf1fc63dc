// The IPC adapter of the contract: one handler per method of the table (daemon/contract/
// methods.ts). Every handler first checks that the sender is our own window's main frame, then
// checks the request against its method's schema, as the HTTP router does. A call may name a
// remote host: it then goes to that host's client (main/hostSessions.ts), the same contract.

import { METHOD_NAMES, parseRequest, type ClientApi, type Method } from '../daemon/contract/contract';
import type { ErrorShape, Reply } from '../daemon/contract/errors';
import { HOST_NAME } from '../daemon/contract/hosts';

export const CHANNEL = (method: Method) => `corral:${method}`;
export const STREAM_OPEN = 'corral:open-stream';
export const STREAM_PORT = 'corral:stream-port';
/** A session's change, with its host's name (null for this machine's). */
export const CHANGES = 'corral:change';
/** A host's link changed state. */
export const HOST_CHANGES = 'corral:host';
/**
 * A machine's events stream connected again, with its host's name (null for this machine's
 * daemon, when the app follows a `corral serve`) and its hello's list when it brought one.
 */
export const RECONNECT = 'corral:reconnect';
/** The preload asks, once, which methods there are: it carries no copy of the table. */
export const METHODS_CHANNEL = 'corral:methods';

/** The few parts of Electron's IpcMainInvokeEvent this needs (a fake in tests). */
export interface InvokeEvent {
  sender: unknown;
  senderFrame: { url: string } | null;
}
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, req: unknown, host?: unknown) => Promise<unknown>): void;
  on(channel: string, listener: (event: InvokeEvent & { returnValue?: unknown }) => void): void;
}

/** `api(null)` is this machine's client, `api(NAME)` a host's. */
export function registerIpc(ipcMain: IpcMainLike, api: (host: string | null) => ClientApi, trusted: (event: InvokeEvent) => boolean, log: (err: unknown) => void = console.error): void {
  ipcMain.on(METHODS_CHANNEL, (event) => {
    event.returnValue = trusted(event) ? METHOD_NAMES : [];
  });
  for (const method of METHOD_NAMES) {
    ipcMain.handle(CHANNEL(method), async (event, req, host): Promise<Reply<unknown>> => {
      if (!trusted(event)) return { ok: false, error: { code: 'forbidden', message: 'only Corral’s own window may call it' } };
      const where = hostArg(host);
      if (where === undefined) return { ok: false, error: { code: 'bad_request', message: 'the host: not a host name', field: 'host' } };
      try {
        const checked = parseRequest(method, req);
        const target = api(where);
        const call = target[method] as (this: ClientApi, req: unknown) => Promise<unknown>;
        return { ok: true, value: await call.call(target, checked) };
      } catch (err) {
        const shape = errorShape(err);
        // Anything not expected at this boundary is a bug.
        if (shape.code === 'internal') log(err);
        return { ok: false, error: shape };
      }
    });
  }
}

/** The host a call names: null for this machine, a host's name, or undefined when it names none that could be. */
export function hostArg(host: unknown): string | null | undefined {
  if (host === undefined || host === null) return null;
  return typeof host === 'string' && HOST_NAME.test(host) ? host : undefined;
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
