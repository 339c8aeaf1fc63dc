// Who may use what: every HTTP route and every WebSocket stream (and what a stream may be sent),
// with the scope it needs. The router and the stream upgrade both ask `refusal()`, and what is
// not in this table is refused: a new route cannot forget its check.

import type { ErrorShape } from '../contract/errors';
import type { TokenInfo } from './tokens';

/**
 * none: no token at all; read: any token but a hook's; write: a read-write token;
 * own-session: a read-write token, or the hook token of the session named in the path.
 */
export type Need = 'none' | 'read' | 'write' | 'own-session';

export const ACCESS = {
  'GET /healthz': 'none',
  // A one-time code for a link to the web UI, no stronger than the token that asks (`corral url`).
  'POST /api/auth/code': 'read',
  // The page trades the link's code for its tab's credential: the code is the proof.
  'POST /api/auth/exchange': 'none',
  'GET /api/clis': 'read',
  'GET /api/sessions': 'read',
  'POST /api/sessions': 'write',
  'POST /api/sessions/order': 'write',
  'GET /api/folder': 'read',
  'GET /api/sessions/:id': 'read',
  'PATCH /api/sessions/:id': 'write',
  'DELETE /api/sessions/:id': 'write',
  'POST /api/sessions/:id/start': 'write',
  'POST /api/sessions/:id/stop': 'write',
  'POST /api/sessions/:id/forget-key': 'write',
  'POST /api/sessions/:id/input': 'write',
  // An agent's own hook, with the token it was started with (CORRAL_SESSION_TOKEN).
  'POST /api/sessions/:id/attention': 'own-session',
  'POST /api/sessions/:id/archive': 'write',
  'POST /api/sessions/:id/restore': 'write',
  // A file's text is as sensitive as the terminal that printed its name: write.
  'GET /api/sessions/:id/preview': 'write',
  'POST /api/sessions/:id/save': 'write',
  'GET /api/sessions/:id/screen': 'read',
  'GET /api/sessions/:id/events': 'read',
  'GET /api/sessions/:id/receipt': 'read',
  'WS /api/events': 'read',
  'WS /api/sessions/:id/stream': 'read',
  // What a stream's viewer sends. A viewer who may not resize keeps its size to its own view.
  'WS /api/sessions/:id/stream input': 'write',
  'WS /api/sessions/:id/stream resize': 'write',
} as const satisfies Record<string, Need>;

export type Endpoint = keyof typeof ACCESS;
export type HttpEndpoint = Exclude<Endpoint, `WS ${string}`>;
export type StreamEndpoint = Extract<Endpoint, `WS ${string}`>;

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
  return { code: 'forbidden', message: `token "${token.name}" is read-only: it cannot change anything or type` };
}
