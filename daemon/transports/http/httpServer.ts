// The engine's network face: the HTTP API and the WebSocket streams, on loopback unless told
// otherwise, every request with a token, and Host/Origin checked against DNS rebinding and
// cross-site WebSocket hijacking.

import http from 'node:http';
import net from 'node:net';
import type { WebSocket, WebSocketServer } from 'ws';
import { WS_PROTOCOL } from '../../contract/contract';
import type { ErrorCode, ErrorShape } from '../../contract/errors';
import type { Engine } from '../../engine/engine';
import { CorralError } from '../../contract/errors';
import { matchRoute } from './routes';
import { refusal } from '../../auth/access';
import { LinkCodes } from '../../auth/linkCodes';
import { hostPath, PROXY_HTTP, PROXY_WS, proxyRequest, proxyUpgrade } from './hostProxy';
import { guardSocket, guardWebSocket } from './socketGuard';
import { serveStatic } from './staticFiles';
import { matchStream } from './webSockets';

export const BODY_LIMIT = 1024 * 1024;

export interface ServeOptions {
  host: string;
  port: number;
  /** Listening anywhere but loopback needs this. */
  allowRemote?: boolean;
  /** The web UI's build, served at `/`. */
  webRoot?: string | null;
}

export interface RunningServer {
  url: string;
  port: number;
  /** The one-time codes of links to the web UI. */
  links: LinkCodes;
  close(): Promise<void>;
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  bad_request: 400,
  bad_json: 400,
  bad_name: 400,
  unknown_cli: 400,
  cli_not_installed: 400,
  cwd_missing: 400,
  cwd_not_folder: 400,
  unauthorized: 401,
  forbidden: 403,
  bad_host: 403,
  unknown_session: 404,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  not_a_repository: 400,
  git_failed: 422,
  gh_unavailable: 409,
  host_unreachable: 503,
};

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startServer(engine: Engine, options: ServeOptions): Promise<RunningServer> {
  if (!isLoopback(options.host) && !options.allowRemote) {
    throw new CorralError('bad_request', `refusing to listen on ${options.host}: only loopback unless --allow-remote is given`, 'host');
  }
  const sockets = new Set<net.Socket>();
  const links = new LinkCodes();
  const server = http.createServer((req, res) => {
    void handle({ engine, trust, webRoot: options.webRoot ?? null, links }, req, res).catch((err) => {
      console.error('corral: a request failed unexpectedly:', err);
      if (!res.headersSent) send(res, 500, { error: { code: 'internal', message: 'internal error (see the daemon log)' } });
    });
  });
  // An idle connection is kept a minute, not Node's 5 s: a client whose event loop was held up
  // (a synchronous child process, a loaded machine) may send on it before it has seen it close,
  // and Node's fetch then fails ("other side closed") rather than try again. They are loopback's.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    guardSocket(socket, 'the API');
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Made (and ws loaded) at the first upgrade: nothing of it is needed to start.
  let wss: WebSocketServer | null = null;
  const webSockets = async (): Promise<WebSocketServer> => {
    const { WebSocketServer } = await import('ws');
    wss ??= new WebSocketServer({ noServer: true, maxPayload: BODY_LIMIT, handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false) });
    return wss;
  };
  server.on('upgrade', (req, socket, head) => {
    guardSocket(socket, 'a WebSocket upgrade');
    const refuse = (status: number, error: ErrorShape) => {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${JSON.stringify({ error })}`);
    };
    const url = new URL(req.url ?? '/', 'http://x');
    const hostError = trust.checkHost(req.headers.host);
    if (hostError) return refuse(403, hostError);
    if (!trust.sameOrigin(req.headers.origin, req.headers.host)) {
      return refuse(403, { code: 'forbidden', message: `a WebSocket from origin ${req.headers.origin} is refused: only this server's own pages may connect` });
    }
    const token = engine.tokens.verify(bearerOf(req));
    const unauthorized: ErrorShape = { code: 'unauthorized', message: 'a valid token is needed (Authorization: Bearer, or the bearer.<token> WebSocket protocol)' };
    const found = matchStream(url.pathname);
    if (!token) return refuse(401, unauthorized);
    const onHost = hostPath(url.pathname);
    if (onHost) {
      const denied = refusal(token, PROXY_WS);
      if (denied) return refuse(403, denied);
      return proxyUpgrade(engine.hosts, onHost, url.search, req, socket, head, refuse);
    }
    if (!found) return refuse(404, { code: 'not_found', message: `no WebSocket at ${url.pathname}` });
    const refused = refusal(token, found.stream.endpoint, found.params.id);
    if (refused) return refuse(refused.code === 'unauthorized' ? 401 : 403, refused);
    void Promise.all([webSockets(), engine.recovered]).then(([server]) =>
      server.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        guardWebSocket(ws, url.pathname);
        found.stream.serve(engine, ws, found.params, url.searchParams, token);
      }),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const trust = new Trust(options.host, address.port, !!options.allowRemote);
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    links,
    close: async () => {
      for (const client of wss?.clients ?? []) client.close(1001, 'the server is going away');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

class Trust {
  private readonly hosts: Set<string>;

  constructor(
    listenHost: string,
    port: number,
    private readonly remote: boolean,
  ) {
    const names = ['localhost', '127.0.0.1', '[::1]', listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost];
    this.hosts = new Set(names.map((name) => `${name}:${port}`.toLowerCase()));
  }

  /** DNS rebinding: a page on another name that resolves here must not reach the API. */
  checkHost(host: string | undefined): ErrorShape | null {
    const value = (host ?? '').toLowerCase();
    if (this.hosts.has(value)) return null;
    // Listening beyond loopback: a bare IP address cannot be a rebinding attack.
    if (this.remote && net.isIP(value.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/:\d+$/, ''))) return null;
    return { code: 'bad_host', message: `Host ${JSON.stringify(host ?? '')} is refused: use ${[...this.hosts][0]}` };
  }

  /** An Origin, when a browser sends one, must be this server. */
  sameOrigin(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    try {
      const url = new URL(origin);
      return url.protocol === 'http:' && url.host.toLowerCase() === (host ?? '').toLowerCase() && this.checkHost(url.host) === null;
    } catch {
      return false;
    }
  }
}

interface Parts {
  engine: Engine;
  trust: Trust;
  webRoot: string | null;
  links: LinkCodes;
}

async function handle({ engine, trust, webRoot, links }: Parts, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const hostError = trust.checkHost(req.headers.host);
  if (hostError) return fail(res, hostError);
  if (!trust.sameOrigin(req.headers.origin, req.headers.host)) {
    return fail(res, { code: 'forbidden', message: `requests from origin ${req.headers.origin} are refused` });
  }
  const onHost = hostPath(url.pathname);
  if (onHost) {
    const refused = refusal(engine.tokens.verify(bearerOf(req)), PROXY_HTTP);
    if (refused) {
      req.resume();
      return fail(res, refused.code === 'unauthorized' ? unauthorized(req.headers.authorization) : refused);
    }
    return proxyRequest(engine.hosts, onHost, url.search, req, res, (error) => fail(res, error));
  }
  const { match, allowed } = matchRoute(req.method ?? 'GET', url.pathname);
  // Anything that is not the API may be the web UI's own files.
  if (!match && allowed.length === 0 && !url.pathname.startsWith('/api/') && serveStatic(webRoot, url.pathname, req, res)) return;

  const token = engine.tokens.verify(bearerOf(req));
  if (!match) {
    if (!token) return fail(res, unauthorized(req.headers.authorization));
    if (allowed.length > 0) {
      return fail(res, { code: 'method_not_allowed', message: `${req.method} is not allowed on ${url.pathname} (allowed: ${allowed.join(', ')})` }, { Allow: allowed.join(', ') });
    }
    return fail(res, { code: 'not_found', message: `no route ${req.method} ${url.pathname}` });
  }
  const { route, params } = match;
  const refused = refusal(token, route.endpoint, params.id);
  if (refused) return fail(res, refused.code === 'unauthorized' ? unauthorized(req.headers.authorization) : refused);

  let body: unknown;
  try {
    body = await readBody(req);
  } catch (err) {
    if (err instanceof CorralError) return fail(res, err.toShape());
    throw err;
  }
  try {
    // Only the health check answers before the sessions found at start are reattached.
    if (route.endpoint !== 'GET /healthz') await engine.recovered;
    const result = await route.handle({ api: engine, tokens: engine.tokens, params, query: url.searchParams, body, token, links });
    send(res, result.status, result.body);
  } catch (err) {
    if (err instanceof CorralError) return fail(res, err.toShape());
    throw err;
  }
}

/**
 * 401: no token, one given in another scheme than Bearer, or one that is not (or no longer) valid.
 * The token itself is never echoed.
 */
function unauthorized(presented: string | undefined): ErrorShape {
  if (!presented?.trim()) return { code: 'unauthorized', message: 'a token is needed: Authorization: Bearer crl_…' };
  // Nothing of the header is echoed: a token in the wrong form is still a token.
  if (!BEARER.test(presented)) return { code: 'unauthorized', message: 'the Authorization header is not read: it must be "Bearer " and one token (Authorization: Bearer crl_…)' };
  return { code: 'unauthorized', message: 'that token is not valid (revoked, or never made)' };
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > BODY_LIMIT) {
      req.resume();
      return reject(new CorralError('too_large', `the body is over ${BODY_LIMIT} bytes`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        req.removeAllListeners('data');
        req.resume();
        reject(new CorralError('too_large', `the body is over ${BODY_LIMIT} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > BODY_LIMIT) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(new CorralError('bad_json', `the body is not valid JSON: ${(err as Error).message}`));
      }
    });
  });
}

// The scheme's name is case-insensitive (RFC 9110): "Bearer", "bearer", "BEARER".
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

export function bearerOf(req: http.IncomingMessage): string | null {
  const header = BEARER.exec(req.headers.authorization ?? '');
  if (header) return header[1]!;
  // Browsers cannot set headers on a WebSocket: the token comes as a protocol, "bearer.<token>".
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const carried = protocols.find((p) => p.startsWith('bearer.'));
  return carried ? carried.slice('bearer.'.length) : null;
}

function fail(res: http.ServerResponse, error: ErrorShape, headers: Record<string, string> = {}): void {
  send(res, STATUS[error.code] ?? 500, { error }, headers);
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text);
}
