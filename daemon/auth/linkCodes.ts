// One-time codes for a link that opens the web UI (`corral url`). A link ends up in the
// browser's history, whatever the page does after: so it carries a code that works once,
// within 60 s, and is traded (POST /api/auth/exchange) for a credential the page keeps in its
// tab only. What history keeps opens nothing.

import crypto from 'node:crypto';

export const LINK_CODE_TTL_MS = 60_000;

interface Pending {
  readOnly: boolean;
  expiresAt: number;
}

export class LinkCodes {
  /** By the code's hash: a dump of this process's memory holds no usable code either. */
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = LINK_CODE_TTL_MS,
  ) {}

  /** A new code; what it opens is no more than the token that asked for it may do. */
  issue(readOnly: boolean): { code: string; expiresAt: number } {
    const now = this.now();
    for (const [hash, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(hash);
    const code = crypto.randomBytes(18).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.pending.set(hashOf(code), { readOnly, expiresAt });
    return { code, expiresAt };
  }

  /** What a code opens, once: a second try, or a late one, gets null. */
  redeem(code: string): { readOnly: boolean } | null {
    const hash = hashOf(code);
    const entry = this.pending.get(hash);
    this.pending.delete(hash);
    if (!entry || entry.expiresAt <= this.now()) return null;
    return { readOnly: entry.readOnly };
  }
}

function hashOf(code: string): string {
  return crypto.createHash('sha256').update(code).digest('hex');
}
