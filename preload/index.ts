/// <reference lib="dom" />
// Exposes the contract to the renderer, and nothing else: one function per method (no generic
// invoke), terminal streams over a MessagePort, session changes as events. Its type is the
// contract's type.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { AppRequest, ClientApi, Contract, Method, Request, Response, StreamHandlers, TerminalStream } from '../daemon/contract/contract';
import type { PagePortFrame, PortFrame } from '../daemon/contract/frames';
import type { Reply } from '../daemon/contract/errors';
import type { SessionChange, TerminalView } from '../daemon/contract/session';

async function invoke<M extends Method>(method: M, req?: Request<M>): Promise<Response<M>> {
  const reply = (await ipcRenderer.invoke(`corral:${method}`, req)) as Reply<Response<M>>;
  // A plain object survives the context bridge whole (an Error would keep only its message).
  if (!reply.ok) throw reply.error;
  return reply.value;
}

function methodNames(): Method[] {
  const names: unknown = ipcRenderer.sendSync('corral:methods');
  return Array.isArray(names) ? names.filter((name): name is Method => typeof name === 'string' && /^[a-zA-Z]+$/.test(name)) : [];
}

let nextStream = 1;

const api: ClientApi = {
  // One function per method of the contract's table (main names them; the table's schemas stay
  // out of this sandboxed page), each one IPC call that main checks against the table.
  ...(Object.fromEntries(methodNames().map((method) => [method, (req?: object) => invoke(method, req as Request<typeof method>)])) as unknown as Contract),

  onSessionChange(listener: (change: SessionChange) => void) {
    const relay = (_event: IpcRendererEvent, change: SessionChange) => listener(change);
    ipcRenderer.on('corral:change', relay);
    return () => ipcRenderer.removeListener('corral:change', relay);
  },

  onAppRequest(listener: (request: AppRequest) => void) {
    const focus = (_event: IpcRendererEvent, id: string) => listener({ kind: 'focus-session', id });
    const create = () => listener({ kind: 'new-session' });
    ipcRenderer.on('corral:focus-session', focus);
    ipcRenderer.on('corral:new-session', create);
    return () => {
      ipcRenderer.removeListener('corral:focus-session', focus);
      ipcRenderer.removeListener('corral:new-session', create);
    };
  },

  openStream(id: string, view: TerminalView, handlers: StreamHandlers): TerminalStream {
    const requestId = nextStream++;
    let port: MessagePort | null = null;
    const queue: PagePortFrame[] = [];
    const send = (message: PagePortFrame) => (port ? port.postMessage(message) : queue.push(message));
    const onPort = (event: IpcRendererEvent, reply: { requestId: number }) => {
      if (reply.requestId !== requestId) return;
      ipcRenderer.removeListener('corral:stream-port', onPort);
      port = event.ports[0]!;
      port.onmessage = ({ data }: MessageEvent<PortFrame>) => {
        if (data.type === 'data') handlers.onData(data.data);
        else if (data.type === 'closed') handlers.onClosed({ reason: data.reason, ...(data.error ? { error: data.error } : {}) });
      };
      port.start();
      for (const message of queue.splice(0)) port.postMessage(message);
    };
    ipcRenderer.on('corral:stream-port', onPort);
    ipcRenderer.send('corral:open-stream', { requestId, id, ...view });
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

contextBridge.exposeInMainWorld('corral', api);
