// The client API over an engine in this process (the desktop app embeds one): the contract's
// methods as they are (the table in contract/methods.ts), plus terminal streams with the same batching and flow control as the
// WebSocket server.

import { METHOD_NAMES, type ClientApi, type Contract, type StreamHandlers, type TerminalStream } from '../contract/contract';
import type { TerminalView } from '../contract/session';
import type { Engine } from '../engine/engine';
import { CorralError } from '../contract/errors';
import { OutputPump } from '../streams/outputPump';

export function engineApi(engine: Engine): ClientApi {
  // The engine implements the contract: each method is the engine's own. Requests reach it
  // checked already, by the IPC handlers (main/ipc.ts) that are this API's only callers.
  const methods = Object.fromEntries(
    METHOD_NAMES.map((method) => [method, (req?: object) => (engine[method] as (req: object) => Promise<unknown>).call(engine, req ?? {})]),
  ) as unknown as Contract;
  return {
    ...methods,
    onSessionChange: (listener) => engine.onSessionChange(listener),
    onHostChange: (listener) => engine.onHostChange(listener),
    openStream: (id, size, handlers) => openEngineStream(engine, id, size, handlers),
  };
}

function openEngineStream(engine: Engine, id: string, view: TerminalView, handlers: StreamHandlers): TerminalStream {
  const pump = new OutputPump((chunk) => handlers.onData(chunk));
  const early: ((s: TerminalStream) => void)[] = [];
  let live: TerminalStream | null = null;
  let closed = false;
  const finish = (info: Parameters<StreamHandlers['onClosed']>[0]) => {
    if (closed) return;
    closed = true;
    pump.dispose();
    handlers.onClosed(info);
  };
  void engine
    .attach(id, {
      ...view,
      onData: (data) => pump.push(data),
      onClose: (lost) => {
        pump.end();
        finish(lost ? { reason: lost.message, error: lost.toShape() } : { reason: 'the session is no longer running' });
      },
    })
    .then(
      (attachment) => {
        if (closed) return attachment.close();
        pump.attach(attachment);
        live = {
          write: (data) => {
            pump.typed();
            attachment.write(data);
          },
          // The engine's attachment resizes the agent too, when this viewer is the one in use.
          resize: (cols, rows) => attachment.resize(cols, rows),
          ack: (bytes) => pump.ack(bytes),
          close: () => {
            attachment.close();
            finish({ reason: 'closed' });
          },
        };
        for (const run of early.splice(0)) run(live);
      },
      (err: unknown) => {
        const error = err instanceof CorralError ? err.toShape() : { code: 'internal' as const, message: 'could not attach' };
        finish({ reason: error.message, error });
      },
    );
  const later = (run: (s: TerminalStream) => void) => (live ? run(live) : early.push(run));
  return {
    write: (data) => later((s) => s.write(data)),
    resize: (cols, rows) => later((s) => s.resize(cols, rows)),
    ack: (bytes) => later((s) => s.ack(bytes)),
    close: () => (live ? live.close() : finish({ reason: 'closed' })),
  };
}
