// The remote hosts' sessions as the desktop app sees them, for its window, its tray and its
// notifications: one client per host through the daemon's proxy (the same contract under
// /api/hosts/NAME that the browser's page uses), each connected host's changes listened to and
// its list kept. A host whose link drops keeps its sessions as last known, and says so.

import type { ClientApi } from '../daemon/contract/contract';
import type { HostChange, HostView } from '../daemon/contract/hosts';
import { listKeeper, withChange, type Reconnecting, type SessionChange, type SessionView } from '../daemon/contract/session';

/** One host as the tray lists it: its link, and its sessions (as last known while the link is down). */
export interface HostSessionList {
  host: HostView;
  sessions: SessionView[];
}

type HostClient = ClientApi & Reconnecting;

export interface HostSessionsDeps {
  /** A host's client, through the daemon's proxy. */
  connect(host: string): HostClient;
  /** A change of a host's session, as the host tells it (its own id). */
  onChange(host: string, change: SessionChange): void;
  /**
   * A host's events stream connected again: what was missed meanwhile is in its list, the hello's
   * (as of the changes passed on after it) when its client gave one.
   */
  onReconnect(host: string, sessions?: SessionView[]): void;
  /** A host, its link or its list changed. */
  onUpdate(): void;
}

interface Entry {
  view: HostView;
  sessions: SessionView[];
  stop: (() => void) | null;
}

export class HostSessions {
  private readonly entries = new Map<string, Entry>();
  private readonly clients = new Map<string, HostClient>();

  constructor(private readonly deps: HostSessionsDeps) {}

  /** A host's client, made once. */
  client(host: string): HostClient {
    let client = this.clients.get(host);
    if (!client) this.clients.set(host, (client = this.deps.connect(host)));
    return client;
  }

  /** Every host as the daemon lists it (the app's first look); then `apply` follows each change. */
  replace(hosts: HostView[]): void {
    for (const name of this.entries.keys()) if (!hosts.some((h) => h.name === name)) this.apply({ kind: 'removed', host: this.entries.get(name)!.view });
    for (const host of hosts) this.apply({ kind: 'updated', host });
  }

  apply(change: HostChange): void {
    const name = change.host.name;
    const entry = this.entries.get(name);
    if (change.kind === 'removed') {
      entry?.stop?.();
      this.entries.delete(name);
      this.clients.delete(name);
    } else if (!entry) {
      this.entries.set(name, { view: change.host, sessions: [], stop: null });
    } else {
      entry.view = change.host;
    }
    const now = this.entries.get(name);
    if (now && now.view.state === 'connected' && !now.stop) now.stop = this.listen(name, now);
    if (now && now.view.state !== 'connected' && now.stop) {
      now.stop();
      now.stop = null;
    }
    this.deps.onUpdate();
  }

  /** The hosts by name, each with its sessions. */
  list(): HostSessionList[] {
    return [...this.entries.values()].sort((a, b) => a.view.name.localeCompare(b.view.name)).map(({ view, sessions }) => ({ host: view, sessions }));
  }

  /** Stops listening to every host (the app changes its source, or quits). */
  close(): void {
    for (const entry of this.entries.values()) entry.stop?.();
    this.entries.clear();
    this.clients.clear();
  }

  private listen(name: string, entry: Entry): () => void {
    const client = this.client(name);
    let current = true;
    // The events stream's hello brings the list as of the changes after it; a list read apart
    // from it stands only until then (it may be older than a change applied meanwhile).
    const reload = listKeeper(
      () => client.listSessions().then(({ sessions }) => sessions, () => null),
      (sessions) => {
        if (!current) return;
        entry.sessions = sessions;
        this.deps.onUpdate();
      },
    );
    const offChange = client.onSessionChange((change) => {
      if (!current) return;
      entry.sessions = withChange(entry.sessions, change);
      this.deps.onChange(name, change);
      this.deps.onUpdate();
    });
    // The events stream's hello (at its first connection too) is when the list is complete.
    const offReconnect = client.onReconnect?.((sessions) => {
      if (!current) return;
      reload(sessions);
      this.deps.onReconnect(name, sessions);
    });
    if (!offReconnect) reload(undefined);
    return () => {
      current = false;
      offChange();
      offReconnect?.();
    };
  }
}
