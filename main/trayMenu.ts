// The tray menu as a pure function of the sessions: each session with its state and one
// action, then the app's own items. With remote hosts, sessions by machine: this one first, then
// each host by name, a host whose link is down saying so. Actions are data (a host's name with
// its session's id); main maps them to what they do.

import { isRunning, type SessionView } from '../daemon/contract/session';
import type { HostView } from '../daemon/contract/hosts';
import type { HostSessionList } from './hostSessions';

/** `host` names a remote host's session; absent for this machine's. */
export type TrayAction =
  | { kind: 'start'; id: string; host?: string }
  | { kind: 'stop'; id: string; host?: string }
  | { kind: 'show-session'; id: string; host?: string }
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

/** A machine's sessions as items; a host's link down: its sessions as last known, Show only. */
function sessionItems(sessions: SessionView[], host: HostView | null): TrayItem[] {
  const down = host !== null && host.state !== 'connected';
  const where = host === null ? {} : { host: host.name };
  return sessions.map((session) => {
    const up = isRunning(session.state);
    return {
      label: `${session.name} — ${stateWords(session, !!session.needsYou)}`,
      submenu: [
        { label: 'Show', action: { kind: 'show-session', id: session.id, ...where } },
        up
          ? { label: 'Stop', action: { kind: 'stop', id: session.id, ...where }, ...(down ? { enabled: false } : {}) }
          : { label: session.resumable ? 'Resume' : 'Start', action: { kind: 'start', id: session.id, ...where }, ...(down ? { enabled: false } : {}) },
      ],
    };
  });
}

/** A host's heading: its name, and what its link is doing when it is not connected. */
function hostHeading(host: HostView): string {
  if (host.state === 'connected') return host.name;
  if (host.state === 'missing') return `${host.name} — missing ${(host.missing ?? []).map((piece) => piece.what).join(', ')}`;
  return `${host.name} — ${host.state}`;
}

/** What Stop all stops: the running sessions of this machine and of each host whose link is up (the others would refuse). */
export function runningSessions(local: readonly SessionView[], hosts: readonly HostSessionList[]): { id: string; host?: string }[] {
  return [
    ...local.filter((s) => isRunning(s.state)).map((s) => ({ id: s.id })),
    ...hosts.filter((h) => h.host.state === 'connected').flatMap((h) => h.sessions.filter((s) => isRunning(s.state)).map((s) => ({ id: s.id, host: h.host.name }))),
  ];
}

export function trayMenu(all: readonly SessionView[], options: { notifications?: boolean; hosts?: readonly HostSessionList[] } = {}): TrayModel {
  // Archived sessions are out of sight here too (they are stopped; the palette restores them).
  const shown = (list: readonly SessionView[]) => list.filter((s) => s.archivedAt === null);
  const local = shown(all);
  const hosts = [...(options.hosts ?? [])].sort((a, b) => a.host.name.localeCompare(b.host.name)).map(({ host, sessions }) => ({ host, sessions: shown(sessions) }));
  const sessions = [...local, ...hosts.flatMap((h) => h.sessions)];
  const items: TrayItem[] = [];
  if (hosts.length === 0) {
    items.push(...sessionItems(local, null));
    if (items.length === 0) items.push({ label: 'No sessions', enabled: false });
  } else {
    items.push({ label: 'This machine', enabled: false }, ...sessionItems(local, null));
    if (local.length === 0) items.push({ label: 'No sessions', enabled: false });
    for (const { host, sessions: theirs } of hosts) {
      items.push({ label: '', separator: true }, { label: hostHeading(host), enabled: false }, ...sessionItems(theirs, host));
      if (theirs.length === 0) items.push({ label: host.state === 'connected' ? 'No sessions' : 'No sessions known', enabled: false });
    }
  }
  const running = runningSessions(local, hosts).length;
  items.push(
    { label: '', separator: true },
    { label: 'New session…', action: { kind: 'new-session' } },
    { label: 'Show Corral', action: { kind: 'show' } },
    { label: 'Stop all…', action: { kind: 'stop-all' }, enabled: running > 0 },
    { label: '', separator: true },
    { label: 'Desktop notifications', action: { kind: 'toggle-notifications' }, checked: options.notifications !== false },
    { label: 'Quit', action: { kind: 'quit' } },
  );
  const waiting = sessions.filter((s) => s.needsYou).length;
  const tooltip = `Corral — ${running} running${waiting ? `, ${waiting} need${waiting === 1 ? 's' : ''} you` : ''}`;
  return { items, attention: waiting > 0, tooltip };
}
