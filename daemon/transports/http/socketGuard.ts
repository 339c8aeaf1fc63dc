// An 'error' event with no listener throws, and one bad peer would take the daemon (and every
// agent's viewer) down with it. Every socket gets a listener: a failure ends that socket alone.

import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Resets and broken pipes are how peers leave; anything else is worth one line. */
const ORDINARY = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT']);

/** A raw socket (HTTP, or an upgrade before it is a WebSocket): errors destroy it, nothing more. */
export function guardSocket(socket: Duplex, where: string): void {
  if ((socket as { corralGuarded?: boolean }).corralGuarded) return;
  (socket as { corralGuarded?: boolean }).corralGuarded = true;
  socket.on('error', (err: NodeJS.ErrnoException) => {
    if (!ORDINARY.has(err.code ?? '')) console.error(`corral: a connection to ${where} failed: ${err.message}`);
    socket.destroy();
  });
}

/**
 * A WebSocket: a bad frame (too big, unmasked, invalid UTF-8…) makes `ws` close the connection
 * with the protocol's code (1009, 1002, 1007…) and emit 'error' once. Log it by path only: the
 * token travels in headers, never in what is logged here.
 */
export function guardWebSocket(ws: WebSocket, pathname: string): void {
  let logged = false;
  ws.on('error', (err: Error & { code?: string }) => {
    if (!logged) {
      logged = true;
      console.error(`corral: closed a WebSocket on ${pathname}: ${err.message}${err.code ? ` (${err.code})` : ''}`);
    }
  });
}
