// Who may use what: every HTTP route and every WebSocket stream (and what a stream may be sent),
// with the scope it needs. The contract's table gives its methods' and streams' scopes; the
// server's own routes are here. The router and the stream upgrade both ask `refusal()`, and
// what is not in this table is refused: a new route cannot forget its check.

import type { ErrorShape } from '../contract/errors';
import { METHODS, STREAMS, type Scope } from '../contract/methods';
import type { TokenInfo } from './tokens';

/** none: no token at all; else a scope of the contract (see contract/methods.ts). */
export type Need = 'none' | Scope;

/** The server's own routes, which are not the engine's methods. */
export const SERVER_ROUTES = {
  'GET /healthz': 'none',
  // A one-time code for a link to the web UI, no stronger than the token that asks (`corral url`).
  'POST /api/auth/code': 'read',
  // The page trades the link's code for its tab's credential: the code is the proof.
  'POST /api/auth/exchange': 'none',
  // A remote host's daemon through this one (hostProxy.ts), with that daemon's own full token:
  // only a read-write token may use it, streams included.
  'ANY /api/hosts/:name/*': 'write',
  'WS /api/hosts/:name/*': 'write',
} as const satisfies Record<string, Need>;

type Streams = typeof STREAMS;
type StreamRules = {
  [S in keyof Streams as `WS ${Streams[S]['path']}`]: Need;
} & {
  [S in keyof Streams as `WS ${Streams[S]['path']} ${keyof Streams[S]['sends'] & string}`]: Need;
};

export type HttpEndpoint = keyof typeof SERVER_ROUTES | (typeof METHODS)[keyof typeof METHODS]['http'];
export type StreamEndpoint = keyof StreamRules;
export type Endpoint = HttpEndpoint | StreamEndpoint;

export const ACCESS: Record<Endpoint, Need> = {
  ...SERVER_ROUTES,
  ...Object.fromEntries(Object.values(METHODS).map((row) => [row.http, row.scope])),
  ...Object.fromEntries(
    Object.values(STREAMS).flatMap((stream) => [
      [`WS ${stream.path}`, stream.scope],
      ...Object.entries(stream.sends).map(([message, scope]) => [`WS ${stream.path} ${message}`, scope]),
    ]),
  ),
} as Record<Endpoint, Need>;

/** full: read-write; read-only: looks; hook: made for one session's agent (it carries sessionId). */
export type TokenKind = 'full' | 'read-only' | 'hook';

export function tokenKind(token: TokenInfo): TokenKind {
  if (token.sessionId) return 'hook';
  return token.scope === 'write' ? 'full' : 'read-only';
}

/** Why this token (or none) may not use this endpoint on this session, or null when it may. */
export function refusal(token: TokenInfo | null, endpoint: string, sessionId?: string): ErrorShape | null {
  const need = (ACCESS as Record<string, Need | undefined>)[endpoint];
  if (!need) return { code: 'forbidden', message: `${endpoint} has no rule saying who may use it: refused` };
  if (need === 'none') return null;
  if (!token) return { code: 'unauthorized', message: 'a token is needed: Authorization: Bearer crl_…' };
  const kind = tokenKind(token);
  if (kind === 'full') return null;
  if (kind === 'hook') {
    if (need === 'own-session' && token.sessionId === sessionId) return null;
    return {
      code: 'forbidden',
      message:
        need === 'own-session'
          ? `token "${token.name}" may act on its own session only`
          : `token "${token.name}" is a session's hook: it may only flag attention for its own session`,
    };
  }
  if (need === 'read') return null;
  if (need === 'own-session') return { code: 'forbidden', message: `token "${token.name}" cannot speak for a session's agent` };
  return { code: 'forbidden', message: `token "${token.name}" is read-only: it cannot change anything, type, or read files` };
}
