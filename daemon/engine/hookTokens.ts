// An agent's own hook (e.g. Claude Code's Notification hook) calls this engine's API to say its
// agent waits for its person. Each launch hands its agent what that takes, in its environment.

import type { Tokens } from '../auth/tokens';

export class HookTokens {
  /** Where an agent's own hook can reach this engine's API (set by the server once it listens). */
  url: string | null = null;

  constructor(private readonly tokens: Tokens) {}

  /**
   * What an agent needs to call its hook: the API's address, its session id, and a token that
   * may act on this session alone. A new token each launch; the old one goes, and all of them go
   * with the session.
   */
  envFor(id: string): Record<string, string> {
    if (!this.url) return {};
    this.tokens.revokeForSession(id);
    const { secret } = this.tokens.create(`hook of session ${id}`, { readOnly: true, sessionId: id, ephemeral: true });
    return { CORRAL_URL: this.url, CORRAL_SESSION_ID: id, CORRAL_SESSION_TOKEN: secret };
  }
}
