// `corral attach ID`: this terminal becomes the session's, over the same stream the UI uses.

import WebSocket from 'ws';
import type { TerminalFrame, ViewerFrame } from '../contract/frames';
import { streamPath, WS_PROTOCOL } from '../contract/routes';
import type { Connection } from './client';
import { DETACH_KEY, DETACH_KEY_NAME } from './detachKey';
import { terminalSafe } from './terminalText';

export function attach(conn: Connection, id: string): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const url = `${conn.url.replace(/^http/, 'ws')}${streamPath('terminal', id)}?cols=${stdout.columns ?? 120}&rows=${stdout.rows ?? 40}`;
  const ws = new WebSocket(url, [WS_PROTOCOL], { headers: { Authorization: `Bearer ${conn.token}` } });
  return new Promise((resolve) => {
    let detached = false;
    const restore = () => {
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      process.removeListener('SIGWINCH', onResize);
    };
    const sendFrame = (frame: ViewerFrame) => ws.send(JSON.stringify(frame));
    const onResize = () => sendFrame({ type: 'resize', cols: stdout.columns, rows: stdout.rows });
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
      process.stderr.write(`[attached; ${DETACH_KEY_NAME} detaches]\r\n`);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const buffer = data as Buffer;
        stdout.write(buffer);
        sendFrame({ type: 'ack', bytes: buffer.length });
        return;
      }
      const message = JSON.parse(data.toString()) as TerminalFrame;
      // The terminal's own bytes above are the session's; the daemon's words are shown, never obeyed.
      if (message.type === 'error') process.stderr.write(`\r\ncorral attach: ${terminalSafe(String(message.error.message), { lines: false })}\r\n`);
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
      resolve(0);
    });
  });
}
