import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../store/migrations';
import { RECEIPT_RETENTION_MS, Store, type SessionRow } from '../store/store';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-db-'));
  file = path.join(dir, 'corral.db');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const row = (id: string): SessionRow => ({
  id,
  name: id,
  cli: 'faker',
  cwd: '/tmp',
  backend: 'tmux',
  state: 'stopped',
  resumeKey: `key-${id}`,
  launchMode: null,
  launchCount: 0,
  launchedAt: null,
  createdAt: 1,
  startedAt: null,
  lastActivityAt: null,
  lastExit: null,
  position: 0,
  archivedAt: null,
  worktree: null,
  firstPrompt: null,
});

describe('the store', () => {
  it('uses WAL, synchronous=NORMAL and foreign keys, at the newest schema version', () => {
    const store = Store.open(file);
    expect(store.version).toBe(MIGRATIONS.length);
    expect(store.settings).toEqual({ journalMode: 'wal', synchronous: 1, foreignKeys: true });
    store.close();
    // WAL is a property of the file: another connection sees it too.
    const db = new Database(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('removing a session removes its events and receipts', () => {
    const store = Store.open(file);
    store.insertSession(row('a'));
    store.appendEvent('a', 1, 'created', 'created');
    store.addReceipt({ sessionId: 'a', exit: { code: 0, signal: null, at: Date.now() }, reason: 'exited', output: 'x', usage: null });
    store.deleteSession('a');
    expect(store.listEvents('a')).toEqual([]);
    expect(store.listReceipts('a', Date.now())).toEqual([]);
    expect(() => store.appendEvent('ghost', 1, 'created', 'x')).toThrow(/FOREIGN KEY/);
    store.close();
  });

  it('the sessions it lists, kept between reads and patched row by row, are what the database holds, in its order', () => {
    const store = Store.open(file);
    for (const [i, id] of ['a', 'b', 'c'].entries()) store.insertSession({ ...row(id), position: i });
    expect(store.listSessions().map((r) => r.id)).toEqual(['a', 'b', 'c']);
    const worktree = { path: '/w', branch: 'corral/b', base: 'main', baseCommit: 'abc', repo: '/r', gitDir: '/r/.git/worktrees/b', setup: null };
    store.updateSession('b', { state: 'running', lastActivityAt: 5, worktree, lastExit: { code: 3, signal: null, at: 9 } });
    store.updateSession('a', { position: 7 });
    store.updateSession('c', { name: 'renamed', resumeKey: null });
    const listed = store.listSessions();
    // A caller's change to what it was given changes nothing kept.
    listed[0]!.name = 'changed by a caller';
    const fresh = Store.open(file);
    expect(store.listSessions()).toEqual(fresh.listSessions());
    expect(store.listSessions().map((r) => [r.id, r.name, r.position])).toEqual([
      ['b', 'b', 1],
      ['c', 'renamed', 2],
      ['a', 'a', 7],
    ]);
    expect(store.getSession('b')).toMatchObject({ state: 'running', lastActivityAt: 5, worktree, lastExit: { code: 3, signal: null, at: 9 } });
    fresh.close();
    store.close();
  });

  it('receipts expire after 30 days', () => {
    const store = Store.open(file);
    store.insertSession(row('a'));
    const now = Date.now();
    store.addReceipt({ sessionId: 'a', exit: { code: 1, signal: null, at: now - RECEIPT_RETENTION_MS - 1 }, reason: 'exited', output: 'old', usage: null });
    const usage = { tokens: 10, cost: 0.5, partial: false, contextFill: 0.25 };
    store.addReceipt({ sessionId: 'a', exit: { code: 2, signal: null, at: now - 1000 }, reason: 'exited', output: 'new', usage });
    expect(store.listReceipts('a', now).map((r) => [r.output, r.usage])).toEqual([['new', usage]]);
    expect(store.expireReceipts(now)).toBe(1);
    store.close();
  });

  it('a failed migration leaves the database untouched and says why', () => {
    const store = Store.open(file);
    store.insertSession(row('keep'));
    store.close();
    const schema = () => {
      const db = new Database(file, { readonly: true });
      try {
        return { version: db.pragma('user_version', { simple: true }), tables: db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() };
      } finally {
        db.close();
      }
    };
    const before = schema();
    const broken = [
      ...MIGRATIONS,
      { name: 'add a column', up: (db: Database.Database) => db.exec('ALTER TABLE sessions ADD COLUMN extra TEXT') },
      { name: 'a step that fails', up: (db: Database.Database) => db.exec('INSERT INTO nowhere VALUES (1)') },
    ];
    expect(() => Store.open(file, broken)).toThrow(
      `upgrading ${file} failed at migration ${MIGRATIONS.length + 2} (a step that fails): no such table: nowhere; ` +
        `the database was left untouched at version ${MIGRATIONS.length}`,
    );
    const again = Store.open(file);
    expect(again.version).toBe(MIGRATIONS.length);
    expect(again.getSession('keep')?.resumeKey).toBe('key-keep');
    again.close();
    const db = new Database(file);
    expect((db.prepare('PRAGMA table_info(sessions)').all() as { name: string }[]).map((c) => c.name)).not.toContain('extra');
    db.close();
    expect(schema()).toEqual(before);
  });

  it('a database from a newer Corral is refused, not touched', () => {
    Store.open(file).close();
    const db = new Database(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    expect(() => Store.open(file)).toThrow(
      `${file} is at schema version ${MIGRATIONS.length + 5}, newer than this Corral knows (${MIGRATIONS.length}); it was left untouched: use the newer Corral that wrote it`,
    );
  });
});
