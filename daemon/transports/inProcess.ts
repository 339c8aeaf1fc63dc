// The client API over an engine in this process (the desktop app embeds one): the contract's
// methods as they are, plus terminal streams with the same batching and flow control as the
// WebSocket server.

import type { ClientApi, StreamHandlers, TerminalStream } from '../contract/contract';
import type { TerminalView } from '../contract/session';
import type { Engine } from '../engine/engine';
import { CorralError } from '../contract/errors';
import { OutputPump } from '../streams/outputPump';

export function engineApi(engine: Engine): ClientApi {
  return {
    listClis: () => engine.listClis(),
    listSessions: () => engine.listSessions(),
    getSession: (req) => engine.getSession(req),
    createSession: (req) => engine.createSession(req),
    startSession: (req) => engine.startSession(req),
    stopSession: (req) => engine.stopSession(req),
    forgetKey: (req) => engine.forgetKey(req),
    removeSession: (req) => engine.removeSession(req),
    renameSession: (req) => engine.renameSession(req),
    write: (req) => engine.write(req),
    resize: (req) => engine.resize(req),
    screen: (req) => engine.screen(req),
    events: (req) => engine.events(req),
    receipt: (req) => engine.receipt(req),
    reorderSessions: (req) => engine.reorderSessions(req),
    checkFolder: (req) => engine.checkFolder(req),
    archiveSession: (req) => engine.archiveSession(req),
    restoreSession: (req) => engine.restoreSession(req),
    previewPath: (req) => engine.previewPath(req),
    savePath: (req) => engine.savePath(req),
    onSessionChange: (listener) => engine.onSessionChange(listener),
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
      onClose: () => {
        pump.flush();
        finish({ reason: 'the session is no longer running' });
      },
    })
    .then(
      (attachment) => {
        if (closed) return attachment.close();
        pump.attach(attachment);
        live = {
          write: (data) => attachment.write(data),
          // The engine's attachment resizes the agent too, when this viewer is the one in use.
          resize: (cols, rows) => attachment.resize(cols, rows),
          ack: (chars) => pump.ack(chars),
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
    ack: (chars) => later((s) => s.ack(chars)),
    close: () => (live ? live.close() : finish({ reason: 'closed' })),
  };
}
