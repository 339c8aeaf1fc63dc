// `corral attach ID`: this terminal becomes the session's, over the same stream the UI uses.

import WebSocket from 'ws';
import type { TerminalFrame, ViewerFrame } from '../contract/frames';
import { streamPath, WS_PROTOCOL } from '../contract/routes';
import { isRunning } from '../contract/session';
import type { Connection } from './client';
import { DETACH_KEY, DETACH_KEY_NAME } from './detachKey';
import { terminalSafe } from './terminalText';

/** A terminal's size as it says it; one that says none (or 0×0) is taken for the usual size. */
const sizeOf = (stdout: NodeJS.WriteStream) => ({ cols: stdout.columns || 120, rows: stdout.rows || 40 });

export function attach(conn: Connection, id: string): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  // Keys come from a person at a terminal, and only Ctrl-] ends it: from a file or a pipe it
  // would never end, and what it typed is `corral send`'s.
  if (!stdin.isTTY) {
    process.stderr.write(`corral attach: needs a terminal to type from (stdin is not one); to type into a session, use corral send ${id} TEXT\n`);
    return Promise.resolve(2);
  }
  const size = sizeOf(stdout);
  const url = `${conn.url.replace(/^http/, 'ws')}${streamPath('terminal', id)}?cols=${size.cols}&rows=${size.rows}`;
  const ws = new WebSocket(url, [WS_PROTOCOL], { headers: { Authorization: `Bearer ${conn.token}` } });
  return new Promise((resolve) => {
    let detached = false;
    let failed = false;
    const restore = () => {
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      process.removeListener('SIGWINCH', onResize);
    };
    const sendFrame = (frame: ViewerFrame) => ws.send(JSON.stringify(frame));
    const onResize = () => sendFrame({ type: 'resize', ...sizeOf(stdout) });
    ws.on('open', () => {
      if (stdin.isTTY) stdin.setRawMode(true);
      stdin.resume();
      stdin.on('data', (data: Buffer) => {
        const text = data.toString('utf8');
        const at = text.indexOf(DETACH_KEY);
        if (at >= 0) {
          if (at > 0) sendFrame({ type: 'input', data: text.slice(0, at) });
          detached = true;
          ws.close(1000, 'detached');
          return;
        }
        sendFrame({ type: 'input', data: text });
      });
      process.on('SIGWINCH', onResize);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const buffer = data as Buffer;
        stdout.write(buffer);
        sendFrame({ type: 'ack', bytes: buffer.length });
        return;
      }
      const message = JSON.parse(data.toString()) as TerminalFrame;
      // Attached once the daemon says hello of a running session (one that is not is refused next).
      if (message.type === 'hello' && isRunning(message.session.state)) process.stderr.write(`[attached; ${DETACH_KEY_NAME} detaches]\r\n`);
      // The terminal's own bytes above are the session's; the daemon's words are shown, never obeyed.
      if (message.type === 'error') {
        failed = true;
        process.stderr.write(`\r\ncorral attach: ${terminalSafe(String(message.error.message), { lines: false })}\r\n`);
      }
      if (message.type === 'closed') process.stderr.write(`\r\n[${terminalSafe(String(message.reason), { lines: false })}]\r\n`);
    });
    ws.on('unexpected-response', (_req, res) => {
      process.stderr.write(`corral attach: the daemon refused (${res.statusCode})\n`);
      resolve(1);
    });
    ws.on('error', (err) => {
      process.stderr.write(`corral attach: ${terminalSafe(err.message, { lines: false })}\n`);
    });
    ws.on('close', () => {
      restore();
      if (detached) process.stderr.write('\r\n[detached; the session keeps running]\r\n');
      resolve(failed ? 1 : 0);
    });
  });
}
