import type { ErrorShape } from '../contract/errors';
import type { TokenInfo } from '../tokens';

/** Why this token may not do this, or null when it may. */
export function scopeRefusal(token: TokenInfo, scope: 'read' | 'write', sessionId: string | undefined): ErrorShape | null {
  if (scope === 'write' && token.scope !== 'write') {
    return { code: 'forbidden', message: `token "${token.name}" is read-only: it cannot change anything or type` };
  }
  if (token.sessionId && token.sessionId !== sessionId) {
    return { code: 'forbidden', message: `token "${token.name}" may act on its own session only` };
  }
  return null;
}

