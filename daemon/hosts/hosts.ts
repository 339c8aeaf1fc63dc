// The hosts of this home (their rows in corral.db) and a link to each (link.ts), started with
// the engine and ended with it. Every change of a link's state goes to the listeners (the
// events stream), so a client can say "reconnecting devbox".

import path from 'node:path';
import { CorralError } from '../contract/errors';
import { LOCAL_HOST, type HostChange, type HostView } from '../contract/hosts';
import type { HostTable } from '../store/hostTable';
import { Link } from './link';

export interface HostsOptions {
  home: string;
  /** CORRAL_SSH_CONFIG: an ssh_config for `ssh -F` instead of the person's own. */
  sshConfig?: string;
  now: () => number;
}

export class Hosts {
  private readonly links = new Map<string, Link>();
  private readonly listeners = new Set<(change: HostChange) => void>();
  private started = false;

  constructor(
    private readonly table: HostTable,
    private readonly options: HostsOptions,
  ) {}

  /** Links every saved host; none of them waits for another, or holds up the caller. */
  start(): void {
    this.started = true;
    for (const row of this.table.list()) this.open(row.name, row.target, row.corral);
  }

  list(): HostView[] {
    return this.table.list().map((row) => this.links.get(row.name)?.view() ?? { name: row.name, target: row.target, corral: row.corral, state: 'connecting', message: null });
  }

  add(host: { name: string; target: string; corral?: string }): HostView {
    if (host.name === LOCAL_HOST) throw new CorralError('bad_name', `"${LOCAL_HOST}" is this machine's own name: choose another`, 'name');
    if (this.table.get(host.name)) throw new CorralError('conflict', `there is already a host named ${host.name}`, 'name');
    this.table.insert({ name: host.name, target: host.target, corral: host.corral ?? null, createdAt: this.options.now() });
    if (this.started) this.open(host.name, host.target, host.corral ?? null);
    return this.list().find((view) => view.name === host.name)!;
  }

  async remove(name: string): Promise<void> {
    const view = this.list().find((v) => v.name === name);
    if (!view) throw unknownHost(name);
    this.table.delete(name);
    const link = this.links.get(name);
    this.links.delete(name);
    await link?.close();
    this.emit({ kind: 'removed', host: view });
  }

  /** The link to a host, for the proxy. */
  link(name: string): Link {
    const link = this.links.get(name);
    if (!link) throw unknownHost(name);
    return link;
  }

  onChange(listener: (change: HostChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.started = false;
    await Promise.all([...this.links.values()].map((link) => link.close()));
    this.links.clear();
  }

  private open(name: string, target: string, corral: string | null): void {
    const link = new Link({
      name,
      target,
      corral,
      socketDir: path.join(this.options.home, 'hosts'),
      ...(this.options.sshConfig ? { sshConfig: this.options.sshConfig } : {}),
      now: this.options.now,
      onChange: (host) => {
        if (this.links.get(name) === link) this.emit({ kind: 'updated', host });
      },
    });
    this.links.set(name, link);
    link.start();
  }

  private emit(change: HostChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

function unknownHost(name: string): CorralError {
  return new CorralError('not_found', `no host named ${JSON.stringify(name)} (corral hosts ls lists them)`);
}
