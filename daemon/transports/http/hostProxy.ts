// A remote host's daemon, through this one: `/api/hosts/NAME/<path>` is `<path>` on NAME's
// daemon (its API and its streams, HTTP and WebSocket upgrades alike), sent through the link's
// ssh tunnel. The prefix is a base address, so every client of the contract (the web
// transport, the CLI) reaches a host by prefixing its base and nothing else. The caller's own
// credential, checked here (a read-write token only: access.ts), is swapped for the remote
// daemon's endpoint token; it never leaves this machine. While the link is down a request is
// refused (host_unreachable), never queued.

import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { ErrorShape } from '../../contract/errors';
import { CorralError } from '../../contract/errors';
import type { Hosts } from '../../hosts/hosts';
import type { Link, Route } from '../../hosts/link';

/** The proxy's rules in the access table (access.ts), for HTTP and for streams. */
export const PROXY_HTTP = 'ANY /api/hosts/:name/*';
export const PROXY_WS = 'WS /api/hosts/:name/*';

/** `/api/hosts/NAME/api/...` (or `/healthz`): the host and the path on its daemon; null for any other path. */
export function hostPath(pathname: string): { name: string; path: string } | null {
  const found = /^\/api\/hosts\/([^/]+)(\/api\/.*|\/healthz)$/.exec(pathname);
  if (!found) return null;
  try {
    return { name: decodeURIComponent(found[1]!), path: found[2]! };
  } catch {
    return null;
  }
}

/** Headers of one connection (RFC 9110 7.6.1), never passed on from one hop to the next. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

/** Headers for the remote daemon: its Host, its token; nothing of the caller's credentials or origin. */
function remoteHeaders(req: http.IncomingMessage, route: Route): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = { ...req.headers };
  for (const name of ['authorization', 'cookie', 'origin', 'referer', 'host', ...HOP_BY_HOP]) delete headers[name];
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith('bearer.'));
  if (protocols.length > 0) headers['sec-websocket-protocol'] = protocols.join(', ');
  else delete headers['sec-websocket-protocol'];
  return { ...headers, host: route.host, authorization: `Bearer ${route.token}` };
}

function linkOf(hosts: Hosts, name: string): { link: Link; route: Route } {
  const link = hosts.link(name);
  return { link, route: link.route() };
}

/**
 * The remote daemon's headers passed on: what its answers are (their type, size and caching).
 * Nothing else: a host is another machine, and a `Set-Cookie` or a `Location` from it would act on
 * this one's origin (cookies for 127.0.0.1 reach every port; a redirect would send the page's
 * credential and body on to this daemon's own API).
 */
const ANSWER_HEADERS = ['content-type', 'content-length', 'cache-control', 'content-disposition', 'x-content-type-options'];
/** The same for a stream's upgrade: the WebSocket handshake's own. */
const UPGRADE_HEADERS = ['upgrade', 'connection', 'sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions'];

/** A status a host may answer with through the proxy: anything but a redirect (and never under 200). */
const passable = (status: number | undefined) => status !== undefined && status >= 200 && status < 600 && (status < 300 || status >= 400);

function notPassedOn(name: string, status: number | undefined): ErrorShape {
  return { code: 'host_unreachable', message: `host ${name} answered with ${status === undefined ? 'no status' : `a ${status}`}, which Corral does not pass on: nothing more was sent` };
}

function unanswered(name: string): ErrorShape {
  return { code: 'host_unreachable', message: `host ${name} did not answer through its tunnel; nothing more was sent` };
}

export function proxyRequest(hosts: Hosts, target: { name: string; path: string }, search: string, req: http.IncomingMessage, res: http.ServerResponse, fail: (error: ErrorShape) => void): void {
  let found: { link: Link; route: Route };
  try {
    found = linkOf(hosts, target.name);
  } catch (err) {
    req.resume();
    if (err instanceof CorralError) return fail(err.toShape());
    throw err;
  }
  const { link, route } = found;
  const out = http.request({ socketPath: route.socket, method: req.method, path: target.path + search, headers: remoteHeaders(req, route), agent: false }, (answer) => {
    if (!passable(answer.statusCode)) {
      answer.resume();
      return fail(notPassedOn(target.name, answer.statusCode));
    }
    // The hop to the remote daemon is its own connection: its connection headers are not the caller's.
    const headers: http.OutgoingHttpHeaders = {};
    for (const name of ANSWER_HEADERS) if (answer.headers[name] !== undefined) headers[name] = answer.headers[name];
    res.writeHead(answer.statusCode!, headers);
    answer.pipe(res);
  });
  out.on('error', () => {
    link.checkSoon();
    if (!res.headersSent) fail(unanswered(target.name));
    else res.destroy();
  });
  req.pipe(out);
}

export function proxyUpgrade(hosts: Hosts, target: { name: string; path: string }, search: string, req: http.IncomingMessage, socket: Duplex, head: Buffer, refuse: (status: number, error: ErrorShape) => void): void {
  let found: { link: Link; route: Route };
  try {
    found = linkOf(hosts, target.name);
  } catch (err) {
    if (err instanceof CorralError) return refuse(err.code === 'not_found' ? 404 : 503, err.toShape());
    throw err;
  }
  const { link, route } = found;
  const out = http.request({
    socketPath: route.socket,
    method: 'GET',
    path: target.path + search,
    headers: { ...remoteHeaders(req, route), connection: 'Upgrade', upgrade: 'websocket' },
    agent: false,
  });
  out.on('upgrade', (answer, remote: net.Socket, remoteHead: Buffer) => {
    const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      if (UPGRADE_HEADERS.includes(answer.rawHeaders[i]!.toLowerCase())) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    }
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (remoteHead.length > 0) socket.write(remoteHead);
    if (head.length > 0) remote.write(head);
    // One end gone is both gone: a dropped tunnel closes the viewer's stream, which reopens when the link is back.
    remote.on('error', () => socket.destroy());
    socket.on('error', () => remote.destroy());
    remote.on('close', () => socket.destroy());
    socket.on('close', () => remote.destroy());
    remote.pipe(socket);
    socket.pipe(remote);
    link.hold(remote);
  });
  out.on('response', (answer) => {
    // The remote daemon refused the stream: its own status and error, as it said them.
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      let error: ErrorShape = unanswered(target.name);
      try {
        error = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: ErrorShape }).error ?? error;
      } catch {
        // not the daemon's JSON
      }
      // Only a refusal passes on as it was said: a redirect, or any answer that is no upgrade, is not.
      const status = answer.statusCode;
      if (status === undefined || status < 400 || status >= 600) return refuse(502, notPassedOn(target.name, status));
      refuse(status, error);
    });
  });
  out.on('error', () => {
    link.checkSoon();
    refuse(503, unanswered(target.name));
  });
  out.end();
}
