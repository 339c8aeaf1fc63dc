// What the UI says about sessions, in words a person reads.

import type { SessionEvent, SessionView } from '../../daemon/contract/session';
import { codePoint, HIDDEN, MAYBE_HIDDEN } from '../../daemon/contract/hiddenCharacters';

export function badge(session: SessionView): { text: string; tone: 'live' | 'busy' | 'idle' | 'bad' | 'attention' } {
  if (session.needsYou && session.needsYou.source !== 'exit') return { text: 'needs you', tone: 'attention' };
  switch (session.state) {
    case 'running':
      // A first prompt not typed yet (the agent not ready for it): what it is doing is waiting.
      if (session.promptWaiting) return { text: 'prompt waits', tone: 'busy' };
      return session.activity === 'working' ? { text: 'working', tone: 'live' } : { text: 'idle', tone: 'live' };
    case 'resuming':
      return { text: 'resuming', tone: 'busy' };
    case 'starting':
      return { text: 'starting', tone: 'busy' };
    case 'stopped':
      return { text: 'stopped', tone: 'idle' };
    case 'exited': {
      const exit = session.lastExit;
      // An exit nobody asked for needs its person (it counts among those that do): said so in its
      // tone, its words saying how it ended.
      const asks = session.needsYou?.source === 'exit';
      // Neither a code nor a signal: it went with its terminal (its tmux server ended), unseen.
      if (!exit || (exit.code === null && !exit.signal)) return { text: 'exited', tone: asks ? 'attention' : 'bad' };
      if (exit.signal) return { text: `exited (${exit.signal})`, tone: asks ? 'attention' : 'bad' };
      return { text: `exited with code ${exit.code}`, tone: asks ? 'attention' : exit.code === 0 ? 'idle' : 'bad' };
    }
  }
}

/** How long a session has run: "45s", "12m", "3h 05m", "2d 4h". */
export function runningFor(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function clock(at: number): string {
  const date = new Date(at);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/** "stopped by you at 14:02": the engine's words, with the time. */
export function eventLine(event: SessionEvent): string {
  return `${event.message} at ${clock(event.at)}`;
}

/** Why a stopped session stopped: its last event that says so. */
export function whyStopped(events: SessionEvent[]): SessionEvent | null {
  // A conversation lost while no engine watched ("the next start is clean") says why too.
  const telling = new Set(['stopped', 'exited', 'reaped', 'found-gone', 'fallback-failed', 'start-failed', 'resume-failed']);
  for (let i = events.length - 1; i >= 0; i--) if (telling.has(events[i]!.kind)) return events[i]!;
  return null;
}

/**
 * The newest dead-key event not yet dismissed, unless the session was stopped or started since
 * (the clean start that follows it is part of it): the banner's subject.
 */
export function lostConversation(events: SessionEvent[], dismissed: ReadonlySet<number>): SessionEvent | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.kind === 'resume-failed') return dismissed.has(event.id) ? null : event;
    if (event.kind === 'resuming' || event.kind === 'stopped' || (event.kind === 'started' && !event.detail.fallback)) return null;
  }
  return null;
}

/**
 * A dead-key event's message in two parts: why the conversation could not be resumed, and
 * whether the session started clean then or will at its next start.
 */
export function lostWords(event: SessionEvent): { why: string; startedClean: boolean } {
  const parts = /^could not resume the conversation \((.*)\): (.*)$/s.exec(event.message);
  return parts ? { why: parts[1]!, startedClean: parts[2] === 'starting clean' } : { why: event.message, startedClean: false };
}

export function startWords(session: SessionView): string {
  return session.resumable ? 'Resume conversation' : 'Start clean';
}

/**
 * Text from an agent, a folder or git, with what is not seen for what it is made visible
 * (⟨U+202E⟩): controls, bidi controls and marks, and characters drawn as nothing
 * (daemon/contract/hiddenCharacters.ts). "report\u202efdp.sh" would read "reporths.pdf", and
 * "billing\u2060-task-1" would look like "billing-task-1".
 */
export function visible(text: string): string {
  return MAYBE_HIDDEN.test(text) ? text.replace(HIDDEN, (c) => `⟨${codePoint(c)}⟩`) : text;
}

/** The search bar's count: which match is selected, of how many (the terminal highlights at most 1,000). */
export function matchWords(index: number, count: number): string {
  if (count === 0) return 'no match';
  const total = count >= 1_000 ? '1,000+' : String(count);
  return index < 0 ? `${total} ${count === 1 ? 'match' : 'matches'}` : `${index + 1} of ${total}`;
}

/** What a tab whose credential only reads says of itself. */
export const READ_ONLY_WORDS = 'This tab only reads (it was opened with a read-only token): keys typed are not sent, and nothing can be started, stopped, answered or made here.';
