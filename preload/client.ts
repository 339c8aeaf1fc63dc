// The desktop window's client of the contract, over Electron's IPC (handed in, so it is tested
// with a fake): one function per method (no generic invoke), terminal streams over a
// MessagePort, session changes as events. A remote host's client is the same, each call and
// stream naming its host: main sends it to that host through the daemon's proxy
// (main/hostSessions.ts), and its changes come tagged with the host's name.

import type { AppRequest, ClientApi, Contract, Method, Request, Response, StreamHandlers, TerminalStream } from '../daemon/contract/contract';
import type { PagePortFrame, PortFrame } from '../daemon/contract/frames';
import type { Reply } from '../daemon/contract/errors';
import type { Reconnecting, SessionChange, SessionView, TerminalView } from '../daemon/contract/session';
import type { HostChange } from '../daemon/contract/hosts';

/** What an IPC message brings besides its arguments: the ports of a stream. */
export interface IpcEvent {
  ports: readonly MessagePort[];
}
/** A channel's listener: what main sent on it, read by the channel's own code. */
type Listener = (event: IpcEvent, ...args: unknown[]) => void;

/** The part of Electron's ipcRenderer this uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  send(channel: string, ...args: unknown[]): void;
  sendSync(channel: string): unknown;
  on(channel: string, listener: Listener): unknown;
  removeListener(channel: string, listener: Listener): unknown;
}

export function desktopApi(ipc: IpcRendererLike): ClientApi {
  async function invoke<M extends Method>(method: M, req: Request<M> | undefined, host: string | null): Promise<Response<M>> {
    const reply = (await ipc.invoke(`corral:${method}`, req, host)) as Reply<Response<M>>;
    // A plain object survives the context bridge whole (an Error would keep only its message).
    if (!reply.ok) throw reply.error;
    return reply.value;
  }

  function methodNames(): Method[] {
    const names: unknown = ipc.sendSync('corral:methods');
    return Array.isArray(names) ? names.filter((name): name is Method => typeof name === 'string' && /^[a-zA-Z]+$/.test(name)) : [];
  }

  let nextStream = 1;
  const names = methodNames();

  /** This machine's client (host null), or a host's: its sessions by their bare ids. */
  function client(host: string | null): ClientApi & Reconnecting {
    return {
      // One function per method of the contract's table (main names them; the table's schemas stay
      // out of this sandboxed page), each one IPC call that main checks against the table.
      ...(Object.fromEntries(names.map((method) => [method, (req?: object) => invoke(method, req as Request<typeof method>, host)])) as unknown as Contract),

      onSessionChange(listener: (change: SessionChange) => void) {
        const relay = (_event: IpcEvent, change: unknown, from: unknown) => from === host && listener(change as SessionChange);
        ipc.on('corral:change', relay);
        return () => ipc.removeListener('corral:change', relay);
      },

      // Main's events stream from this machine's daemon (a followed `corral serve`) or from the
      // host connected again: with its hello's list, which stands for the list (as of the changes
      // relayed after it), or, without one, read again.
      onReconnect(listener: (sessions?: SessionView[]) => void) {
        const relay = (_event: IpcEvent, from: unknown, sessions: unknown) => from === host && listener(Array.isArray(sessions) ? (sessions as SessionView[]) : undefined);
        ipc.on('corral:reconnect', relay);
        return () => ipc.removeListener('corral:reconnect', relay);
      },

      openStream(id: string, view: TerminalView, handlers: StreamHandlers): TerminalStream {
        const requestId = nextStream++;
        let port: MessagePort | null = null;
        const queue: PagePortFrame[] = [];
        const send = (message: PagePortFrame) => (port ? port.postMessage(message) : queue.push(message));
        const onPort = (event: IpcEvent, reply: unknown) => {
          if ((reply as { requestId?: number }).requestId !== requestId) return;
          ipc.removeListener('corral:stream-port', onPort);
          port = event.ports[0]!;
          port.onmessage = ({ data }: MessageEvent<PortFrame>) => {
            if (data.type === 'data') handlers.onData(data.data);
            else if (data.type === 'closed') handlers.onClosed({ reason: data.reason, ...(data.error ? { error: data.error } : {}) });
          };
          port.start();
          for (const message of queue.splice(0)) port.postMessage(message);
        };
        ipc.on('corral:stream-port', onPort);
        ipc.send('corral:open-stream', { requestId, id, host, ...view });
        return {
          write: (data) => send({ type: 'input', data }),
          resize: (cols, rows) => send({ type: 'resize', cols, rows }),
          ack: (bytes) => send({ type: 'ack', bytes }),
          close: () => {
            send({ type: 'close' });
            port?.close();
          },
        };
      },
    };
  }

  return {
    ...client(null),

    hostClient: (host: string) => client(host),

    onHostChange(listener: (change: HostChange) => void) {
      const relay = (_event: IpcEvent, change: unknown) => listener(change as HostChange);
      ipc.on('corral:host', relay);
      return () => ipc.removeListener('corral:host', relay);
    },

    onAppRequest(listener: (request: AppRequest) => void) {
      const focus = (_event: IpcEvent, id: unknown) => listener({ kind: 'focus-session', id: String(id) });
      const create = () => listener({ kind: 'new-session' });
      ipc.on('corral:focus-session', focus);
      ipc.on('corral:new-session', create);
      return () => {
        ipc.removeListener('corral:focus-session', focus);
        ipc.removeListener('corral:new-session', create);
      };
    },
  };
}
