import type { ErrorShape } from '../contract/errors';
import type { TokenInfo } from '../tokens';

/** Why this token may not do this, or null when it may. */
export function scopeRefusal(token: TokenInfo, scope: 'read' | 'write' | 'hook', sessionId: string | undefined): ErrorShape | null {
  // An agent's hook: a read-write token, or the token made for that very session.
  if (scope === 'hook' && token.scope !== 'write' && (!token.sessionId || token.sessionId !== sessionId)) {
    return { code: 'forbidden', message: `token "${token.name}" cannot speak for a session's agent` };
  }
  if (scope === 'write' && token.scope !== 'write') {
    return { code: 'forbidden', message: `token "${token.name}" is read-only: it cannot change anything or type` };
  }
  if (token.sessionId && token.sessionId !== sessionId) {
    return { code: 'forbidden', message: `token "${token.name}" may act on its own session only` };
  }
  return null;
}

