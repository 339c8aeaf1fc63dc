// WebSocket streams. A session's stream: its screen first, then live output in batches of at
// most ~5 ms (binary frames, UTF-8), input and resize in (JSON text frames), with
// acknowledgements: a viewer more than 350,000 bytes behind pauses the source until it is under 250,000.
// The events stream: every session change, for every session. Who may open which, and who may
// type or resize on a session's stream, is in access.ts.

import type { WebSocket } from 'ws';
import type { Attachment } from '../../backends/backend';
import { PROTOCOL_VERSION } from '../../contract/contract';
import { STREAMS } from '../../contract/methods';
import { checkColors, checkHistory } from '../../contract/session';
import type { Engine } from '../../engine/engine';
import { CorralError } from '../../contract/errors';
import { parseViewerFrame, type EventsFrame, type TerminalFrame, type ViewerFrame } from '../../contract/frames';
import { OutputPump } from '../../streams/outputPump';
import type { TokenInfo } from '../../auth/tokens';
import { refusal, type StreamEndpoint } from '../../auth/access';
import { matchPath } from './routes';

export interface Stream {
  endpoint: StreamEndpoint;
  path: string;
  serve(engine: Engine, ws: WebSocket, params: Record<string, string>, query: URLSearchParams, token: TokenInfo): void;
}

function socket(name: keyof typeof STREAMS, serve: Stream['serve']): Stream {
  const { path } = STREAMS[name];
  return { endpoint: `WS ${path}`, path, serve };
}

/** The contract's streams, each served on a WebSocket at its path. */
export const SOCKETS: Stream[] = [
  socket('events', (engine, ws) => serveEvents(engine, ws)),
  socket('terminal', (engine, ws, params, query, token) => void serveStream(engine, ws, params.id!, query, token)),
];

export function matchStream(pathname: string): { stream: Stream; params: Record<string, string> } | null {
  for (const stream of SOCKETS) {
    const params = matchPath(stream.path, pathname);
    if (params) return { stream, params };
  }
  return null;
}

export async function serveStream(engine: Engine, ws: WebSocket, id: string, query: URLSearchParams, token: TokenInfo): Promise<void> {
  const size = {
    cols: clamp(Number(query.get('cols') ?? 120), 2, 1000),
    rows: clamp(Number(query.get('rows') ?? 40), 2, 500),
  };
  const colors = checkColors({ fg: query.get('fg'), bg: query.get('bg') });
  const history = checkHistory(query.get('history'));
  const sendJson = (message: TerminalFrame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(message));
  // A viewer who may not resize sees the pane at the pane's size: its own size is its own view's.
  const viewOnly = refusal(token, 'WS /api/sessions/:id/stream resize', id) !== null;

  let attachment: Attachment | null = null;
  const early: ViewerFrame[] = [];
  const pump = new OutputPump((frame) => ws.readyState === ws.OPEN && ws.send(frame, { binary: true }));
  const onData = (data: string | Uint8Array) => pump.push(data);

  const handle = (message: ViewerFrame) => {
    if (!attachment) return early.push(message);
    if (message.type === 'ack') return pump.ack(message.bytes);
    if (message.type === 'resize') {
      if (viewOnly) return;
      // The engine's attachment resizes the agent too, once this viewer is the one in use.
      attachment.resize(message.cols, message.rows);
      return;
    }
    const denied = refusal(token, 'WS /api/sessions/:id/stream input', id);
    if (denied) return sendJson({ type: 'error', error: denied });
    pump.typed();
    attachment.write(message.data);
  };

  ws.on('message', (raw, isBinary) => {
    const message = parseInput(isBinary ? null : raw.toString());
    if ('error' in message) return sendJson({ type: 'error', error: { code: 'bad_request', message: message.error } });
    try {
      handle(message);
    } catch (err) {
      // A bug, thrown from a listener: uncaught it would end the daemon, and every agent's stream with it.
      console.error('corral: a viewer’s message failed:', err);
      ws.close(1011, 'internal error (see the daemon log)');
    }
  });

  try {
    const session = await engine.getSession({ id });
    sendJson({ type: 'hello', protocol: PROTOCOL_VERSION, session });
    attachment = await engine.attach(id, {
      ...size,
      viewOnly,
      inUse: query.get('inUse') === '1',
      ...(colors ? { colors } : {}),
      ...(history === undefined ? {} : { history }),
      onData,
      onClose: (lost) => {
        pump.end();
        if (lost) {
          sendJson({ type: 'error', error: lost.toShape() });
          ws.close(4409, lost.message.slice(0, 120));
          return;
        }
        sendJson({ type: 'closed', reason: 'the session is no longer running' });
        ws.close(1000, 'session ended');
      },
    });
  } catch (err) {
    const error = err instanceof CorralError ? err.toShape() : { code: 'internal' as const, message: 'could not attach (see the daemon log)' };
    if (!(err instanceof CorralError)) console.error('corral: attach failed:', err);
    sendJson({ type: 'error', error });
    ws.close(error.code === 'unknown_session' ? 4404 : 4409, error.message.slice(0, 120));
    return;
  }
  ws.on('close', () => {
    pump.dispose();
    attachment?.close();
  });
  if (ws.readyState !== ws.OPEN) attachment.close();
  pump.attach(attachment);
  for (const message of early.splice(0)) handle(message);
}

export function serveEvents(engine: Engine, ws: WebSocket): void {
  // The hello's list and the changes are one sequence: a change made while the list is read is
  // held and sent after it (applying it again to a list that has it changes nothing), so a
  // client never holds a list older than a change it applied.
  let held: EventsFrame[] | null = [];
  const send = (frame: EventsFrame) => {
    if (held) held.push(frame);
    else if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const unsubscribe = engine.onSessionChange((change) => send({ type: 'change', ...change }));
  const unsubscribeHosts = engine.onHostChange((change) => send({ type: 'host', ...change }));
  ws.on('close', () => {
    unsubscribe();
    unsubscribeHosts();
  });
  void engine.listSessions().then(({ sessions }) => {
    const after = held ?? [];
    held = null;
    send({ type: 'hello', protocol: PROTOCOL_VERSION, sessions, hosts: engine.hosts.list() });
    after.forEach(send);
  }, () => ws.close(1011, 'the list of sessions could not be read'));
}

/** A text frame from a viewer, checked. */
export function parseInput(text: string | null): ViewerFrame | { error: string } {
  if (text === null) return { error: 'send JSON text frames: {"type":"input","data":…}, {"type":"resize",…} or {"type":"ack",…}' };
  try {
    return parseViewerFrame(JSON.parse(text));
  } catch {
    return { error: 'a frame is not valid JSON' };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : min;
}
