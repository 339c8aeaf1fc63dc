// The remote hosts this home links to: a name, an ssh target and the remote corral command.
// No password or key: ssh has the person's own.

import type Database from 'better-sqlite3';

export interface HostRow {
  name: string;
  target: string;
  corral: string | null;
  createdAt: number;
}

interface HostRecord {
  name: string;
  target: string;
  corral: string | null;
  created_at: number;
}

export class HostTable {
  constructor(private readonly db: Database.Database) {}

  insert(row: HostRow): void {
    this.db.prepare('INSERT INTO hosts (name, target, corral, created_at) VALUES (?, ?, ?, ?)').run(row.name, row.target, row.corral, row.createdAt);
  }

  list(): HostRow[] {
    return (this.db.prepare('SELECT * FROM hosts ORDER BY created_at, name').all() as HostRecord[]).map((r) => ({ name: r.name, target: r.target, corral: r.corral, createdAt: r.created_at }));
  }

  get(name: string): HostRow | undefined {
    return this.list().find((row) => row.name === name);
  }

  delete(name: string): boolean {
    return this.db.prepare('DELETE FROM hosts WHERE name = ?').run(name).changes > 0;
  }
}
