// API tokens: "crl_" and 32 random characters. Only a SHA-256 hash is stored; a token is
// shown once, when it is made, and never again (not in lists, logs or errors).

import crypto from 'node:crypto';
import type { Store, TokenRow } from '../store/store';

export const TOKEN_PREFIX = 'crl_';

/**
 * A browser tab's credential ends once unused this long. It outlives a restart of the daemon (a
 * tab goes on after an upgrade), is listed and revocable as any token, and does not last for
 * ever where the browser keeps a tab's storage on disk (Chromium does, to restore tabs).
 */
export const TAB_IDLE_MS = 24 * 60 * 60 * 1000;

export interface TokenInfo {
  id: string;
  name: string;
  scope: 'read' | 'write';
  sessionId: string | null;
  createdAt: number;
  lastUsedAt: number | null;
}

export class Tokens {
  /**
   * This run of the daemon. An engine has one Tokens for its life, so a temporary token is tied
   * to the engine that made it: a later one (after a stop, or a kill -9) refuses it.
   */
  readonly run = crypto.randomUUID();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Deletes the temporary tokens of every other run (a crashed daemon could not), and the tabs'
   * credentials unused for too long. The lock holder calls it.
   */
  dropOtherRuns(): number {
    return this.store.tokens.deleteEphemeralExcept(this.run) + this.store.tokens.deleteIdle(this.now());
  }

  /** Makes a token and returns its secret, which is not kept anywhere. */
  create(name: string, options: { readOnly?: boolean; sessionId?: string; ephemeral?: boolean; idleMs?: number } = {}): { secret: string; info: TokenInfo } {
    const secret = TOKEN_PREFIX + crypto.randomBytes(24).toString('base64url');
    const row: TokenRow = {
      id: `tok_${crypto.randomBytes(4).toString('hex')}`,
      name,
      hash: hashOf(secret),
      scope: options.readOnly ? 'read' : 'write',
      sessionId: options.sessionId ?? null,
      ephemeral: !!options.ephemeral,
      runId: options.ephemeral ? this.run : null,
      createdAt: this.now(),
      lastUsedAt: null,
      idleMs: options.idleMs ?? null,
    };
    this.store.tokens.insert(row);
    return { secret, info: infoOf(row) };
  }

  list(): TokenInfo[] {
    this.store.tokens.deleteIdle(this.now());
    return this.store.tokens.list().filter((t) => !t.ephemeral).map(infoOf);
  }

  revoke(id: string): boolean {
    return this.store.tokens.delete(id);
  }

  /** Revokes the tokens made for one session's agent. */
  revokeForSession(sessionId: string): void {
    for (const token of this.store.tokens.list()) if (token.sessionId === sessionId) this.store.tokens.delete(token.id);
  }

  /** The token a presented secret stands for, or null. Compared as hashes, in constant time. */
  verify(presented: string | undefined | null): TokenInfo | null {
    if (!presented || !presented.startsWith(TOKEN_PREFIX) || presented.length > 200) return null;
    const hash = hashOf(presented);
    const row = this.store.tokens.byHash(hash);
    if (!row || !crypto.timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    // A temporary token dies with the daemon that made it, a crash included.
    if (row.ephemeral && row.runId !== this.run) return null;
    const now = this.now();
    // A tab's credential unused too long is gone (kept in a browser's storage on disk, say).
    if (row.idleMs !== null && now - (row.lastUsedAt ?? row.createdAt) > row.idleMs) {
      this.store.tokens.delete(row.id);
      return null;
    }
    if (!row.lastUsedAt || now - row.lastUsedAt > 60_000) this.store.tokens.touch(row.id, now);
    return infoOf(row);
  }
}

function hashOf(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

function infoOf(row: TokenRow): TokenInfo {
  return { id: row.id, name: row.name, scope: row.scope, sessionId: row.sessionId, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt };
}
