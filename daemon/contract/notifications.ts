// When a session change is worth a desktop notification, and its words. One rule for the
// desktop app (Electron's notifications) and the browser (the Notification API).

import { sessionKey } from './hosts';
import type { SessionChange } from './session';

export interface Notice {
  /** The session's key: its id, or HOST/ID for a remote host's (what opens its tab). */
  sessionId: string;
  title: string;
  body: string;
}

/** Tracks which sessions already wait, so each wait is told once. */
export class NoticeBoard {
  private readonly waiting = new Set<string>();

  /** The notice this change deserves, if any; `host` names a remote host's session (its change as the host tells it). */
  notice(change: SessionChange, host: string | null = null): Notice | null {
    const { session, event } = change;
    const key = sessionKey(host, session.id);
    if (change.kind === 'removed') {
      this.waiting.delete(key);
      return null;
    }
    if (change.kind === 'added') {
      // A new session, or one a client is told of as it subscribes: nothing happened to it now.
      if (session.needsYou) this.waiting.add(key);
      return null;
    }
    const newlyWaiting = !!session.needsYou && !this.waiting.has(key);
    if (session.needsYou) this.waiting.add(key);
    else this.waiting.delete(key);
    const name = host === null ? session.name : `${session.name} on ${host}`;
    if (newlyWaiting && session.needsYou?.source !== 'exit') {
      const { detail, about } = session.needsYou!;
      return { sessionId: key, title: `${name} needs you`, body: `${detail ?? 'It is waiting for your answer.'}${about ? `\n${about}` : ''}` };
    }
    if (event?.kind === 'exited') return { sessionId: key, title: `${name} ended`, body: `It ${event.message}.` };
    if (event?.kind === 'fallback-failed') return { sessionId: key, title: `${name} ended`, body: 'Its conversation could not be resumed, and its clean start failed too.' };
    return null;
  }
}
