// When a session change is worth a desktop notification, and its words. One rule for the
// desktop app (Electron's notifications) and the browser (the Notification API).

import type { SessionChange } from './session';

export interface Notice {
  sessionId: string;
  title: string;
  body: string;
}

/** Tracks which sessions already wait, so each wait is told once. */
export class NoticeBoard {
  private readonly waiting = new Set<string>();

  /** The notice this change deserves, if any. */
  notice(change: SessionChange): Notice | null {
    const { session, event } = change;
    if (change.kind === 'removed') {
      this.waiting.delete(session.id);
      return null;
    }
    if (change.kind === 'added') {
      // A new session, or one a client is told of as it subscribes: nothing happened to it now.
      if (session.needsYou) this.waiting.add(session.id);
      return null;
    }
    const newlyWaiting = !!session.needsYou && !this.waiting.has(session.id);
    if (session.needsYou) this.waiting.add(session.id);
    else this.waiting.delete(session.id);
    if (newlyWaiting && session.needsYou?.source !== 'exit') {
      return { sessionId: session.id, title: `${session.name} needs you`, body: session.needsYou?.detail ?? 'It is waiting for your answer.' };
    }
    if (event?.kind === 'exited') return { sessionId: session.id, title: `${session.name} ended`, body: `It ${event.message}.` };
    if (event?.kind === 'fallback-failed') return { sessionId: session.id, title: `${session.name} ended`, body: 'Its conversation could not be resumed, and its clean start failed too.' };
    return null;
  }
}
