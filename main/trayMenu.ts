// The tray menu as a pure function of the sessions: each session with its state and one
// action, then the app's own items. Actions are data; main maps them to what they do.

import { isRunning, type SessionView } from '../daemon/contract/session';

export type TrayAction =
  | { kind: 'start'; id: string }
  | { kind: 'stop'; id: string }
  | { kind: 'show-session'; id: string }
  | { kind: 'new-session' }
  | { kind: 'show' }
  | { kind: 'stop-all' }
  | { kind: 'toggle-notifications' }
  | { kind: 'quit' };

export interface TrayItem {
  label: string;
  enabled?: boolean;
  action?: TrayAction;
  submenu?: TrayItem[];
  separator?: boolean;
  /** A checkbox item, and whether it is ticked. */
  checked?: boolean;
}

export interface TrayModel {
  items: TrayItem[];
  /** Some session waits for the person: the icon says so. */
  attention: boolean;
  tooltip: string;
}

function stateWords(session: SessionView, needsYou: boolean): string {
  if (needsYou) return 'needs you';
  if (session.state === 'running' && session.activity) return session.activity;
  if (session.state === 'exited' && session.lastExit) return session.lastExit.signal ? `exited (${session.lastExit.signal})` : `exited (${session.lastExit.code})`;
  return session.state;
}

export function trayMenu(all: readonly SessionView[], options: { notifications?: boolean } = {}): TrayModel {
  // Archived sessions are out of sight here too (they are stopped; the palette restores them).
  const sessions = all.filter((s) => s.archivedAt === null);
  const needsYou = new Set(sessions.filter((s) => s.needsYou).map((s) => s.id));
  const items: TrayItem[] = sessions.map((session) => {
    const up = isRunning(session.state);
    return {
      label: `${session.name} — ${stateWords(session, needsYou.has(session.id))}`,
      submenu: [
        { label: 'Show', action: { kind: 'show-session', id: session.id } },
        up
          ? { label: 'Stop', action: { kind: 'stop', id: session.id } }
          : { label: session.resumable ? 'Resume' : 'Start', action: { kind: 'start', id: session.id } },
      ],
    };
  });
  if (items.length === 0) items.push({ label: 'No sessions', enabled: false });
  const running = sessions.filter((s) => isRunning(s.state)).length;
  items.push(
    { label: '', separator: true },
    { label: 'New session…', action: { kind: 'new-session' } },
    { label: 'Show Corral', action: { kind: 'show' } },
    { label: 'Stop all…', action: { kind: 'stop-all' }, enabled: running > 0 },
    { label: '', separator: true },
    { label: 'Desktop notifications', action: { kind: 'toggle-notifications' }, checked: options.notifications !== false },
    { label: 'Quit', action: { kind: 'quit' } },
  );
  const waiting = sessions.filter((s) => needsYou.has(s.id)).length;
  const tooltip = `Corral — ${running} running${waiting ? `, ${waiting} need${waiting === 1 ? 's' : ''} you` : ''}`;
  return { items, attention: waiting > 0, tooltip };
}
