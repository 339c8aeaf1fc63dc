// corral.db: sessions, their event log and exit receipts. Saved rows are types of their
// own (SessionRow), apart from the engine's live objects.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { ExitInfo, Receipt, SessionEvent, SessionEventKind, SessionView } from '../contract/session';
import { makePrivate } from '../home/home';
import { HostTable } from './hostTable';
import { MIGRATIONS, type Migration } from './migrations';

export type LaunchMode = 'fresh' | 'resume' | 'fallback';

/** The fields a session's row shares with what clients see of it (contract/session.ts). */
type SharedFields = 'id' | 'name' | 'cli' | 'cwd' | 'backend' | 'state' | 'createdAt' | 'startedAt' | 'lastActivityAt' | 'lastExit' | 'archivedAt';

/** A session as it is saved: what clients see of it, and what only the engine knows. */
export interface SessionRow extends Pick<SessionView, SharedFields> {
  resumeKey: string | null;
  launchMode: LaunchMode | null;
  launchCount: number;
  launchedAt: number | null;
  position: number;
  /** Typed into the agent once it is ready (firstPrompts.ts), then cleared. */
  firstPrompt: string | null;
  /** The session's own git worktree (its cwd is in it), saved as JSON. */
  worktree: SessionWorktree | null;
}

export interface SessionWorktree {
  path: string;
  branch: string;
  /** A branch name, or a commit when it was made from a detached HEAD. */
  base: string;
  baseCommit: string;
  /** The folder of the repository it was made from (where git's worktree commands run). */
  repo: string;
  /** Its own git folder: the setup's done-mark lives there, out of the working tree. */
  gitDir: string;
  /** The repository's setup command, run before the agent's first start. */
  setup: string | null;
}

export const RECEIPTS_PER_SESSION = 20;
export const RECEIPT_RETENTION_MS = 30 * 86_400_000;

export class MigrationError extends Error {}

/**
 * Each field of a SessionRow and its column, stated once: the INSERT, every UPDATE and the
 * reading of a row are made from it. (lastExit is three columns, EXIT_COLUMNS.)
 */
const COLUMNS = {
  id: 'id',
  name: 'name',
  cli: 'cli',
  cwd: 'cwd',
  backend: 'backend',
  state: 'state',
  resumeKey: 'resume_key',
  launchMode: 'launch_mode',
  launchCount: 'launch_count',
  launchedAt: 'launched_at',
  createdAt: 'created_at',
  startedAt: 'started_at',
  lastActivityAt: 'last_activity_at',
  position: 'position',
  archivedAt: 'archived_at',
  firstPrompt: 'first_prompt',
  worktree: 'worktree',
} as const satisfies Record<Exclude<keyof SessionRow, 'lastExit'>, string>;

const EXIT_COLUMNS = ['last_exit_code', 'last_exit_signal', 'last_exit_at'] as const;

/** A row of the sessions table as SQLite gives it: each field under its column's name (JSON as text). */
type SessionRecord = { [K in Exclude<keyof typeof COLUMNS, 'worktree'> as (typeof COLUMNS)[K]]: SessionRow[K] } & {
  worktree: string | null;
  last_exit_code: number | null;
  last_exit_signal: string | null;
  last_exit_at: number | null;
};

const SESSION_COLUMNS = [...Object.values(COLUMNS), ...EXIT_COLUMNS];
const INSERT_SESSION = `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map((c) => `@${c}`).join(', ')})`;

export class Store {
  /** The sessions as last read: the watchers list them every second, and only this store writes them. */
  private sessions: SessionRow[] | null = null;
  /** Each statement prepared once (preparing one costs more than running it). */
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(private readonly db: Database.Database) {}

  /**
   * Opens (creating if needed) and migrates the database. Pending migrations run in one
   * transaction: if any fails, the file is left exactly as it was and the error says why.
   */
  static open(file: string, migrations: Migration[] = MIGRATIONS): Store {
    if (file !== ':memory:') {
      // SQLite gives its -wal and -shm files the database's own mode: make that 0600 first,
      // whatever the umask, and whatever an older Corral (or a copy) left behind.
      fs.closeSync(fs.openSync(file, 'a', 0o600));
      for (const part of [file, `${file}-wal`, `${file}-shm`]) makePrivate(part);
    }
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db, file, migrations);
    } catch (err) {
      db.close();
      throw err;
    }
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  get tokens(): TokenTable {
    return new TokenTable((text) => this.sql(text));
  }

  get hosts(): HostTable {
    return new HostTable(this.db);
  }

  /** Whether the person allowed this repository's worktree setup to run this command. */
  setupAllowed(repo: string, command: string): boolean {
    return this.sql('SELECT 1 FROM allowed_setups WHERE repo = ? AND command = ?').get(repo, command) !== undefined;
  }

  allowSetup(repo: string, command: string, at: number): void {
    this.sql('INSERT OR IGNORE INTO allowed_setups (repo, command, allowed_at) VALUES (?, ?, ?)').run(repo, command, at);
  }

  get version(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /** How this connection writes: journal mode, how often it syncs (1 = NORMAL), whether foreign keys hold. */
  get settings(): { journalMode: string; synchronous: number; foreignKeys: boolean } {
    return {
      journalMode: this.db.pragma('journal_mode', { simple: true }) as string,
      synchronous: this.db.pragma('synchronous', { simple: true }) as number,
      foreignKeys: this.db.pragma('foreign_keys', { simple: true }) === 1,
    };
  }

  insertSession(row: SessionRow): void {
    this.sessions = null;
    this.sql(INSERT_SESSION).run(recordOf(row));
  }

  getSession(id: string): SessionRow | undefined {
    const record = this.sql('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRecord | undefined;
    return record && fromRecord(record);
  }

  listSessions(): SessionRow[] {
    this.sessions ??= (this.sql('SELECT * FROM sessions ORDER BY position, created_at').all() as SessionRecord[]).map(fromRecord);
    // Copies: a caller may change the rows it gets.
    return this.sessions.map((row) => ({ ...row }));
  }

  nextPosition(): number {
    const row = this.sql('SELECT COALESCE(MAX(position), -1) + 1 AS next FROM sessions').get() as { next: number };
    return row.next;
  }

  updateSession(id: string, patch: Partial<Omit<SessionRow, 'id'>>): void {
    const record = recordOf(patch);
    const columns = Object.keys(record);
    if (columns.length === 0) return;
    this.sql(`UPDATE sessions SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run({ ...record, id });
    // The one row read again (a few µs), not the list (a few ms with 60): its order moves only with its position.
    const at = this.sessions?.findIndex((row) => row.id === id) ?? -1;
    const now = at >= 0 && !('position' in patch) ? this.getSession(id) : undefined;
    if (now) this.sessions![at] = now;
    else this.sessions = null;
  }

  /** Gives the sessions these positions, in one transaction. */
  reorder(ids: string[]): void {
    const set = this.sql('UPDATE sessions SET position = ? WHERE id = ?');
    this.sessions = null;
    this.db.transaction(() => ids.forEach((id, position) => set.run(position, id)))();
  }

  deleteSession(id: string): void {
    this.sessions = null;
    this.sql('DELETE FROM sessions WHERE id = ?').run(id);
  }

  appendEvent(sessionId: string, at: number, kind: SessionEventKind, message: string, detail: Record<string, unknown> = {}): SessionEvent {
    const info = this.db
      .prepare('INSERT INTO events (session_id, at, kind, message, detail) VALUES (?, ?, ?, ?, ?)')
      .run(sessionId, at, kind, message, JSON.stringify(detail));
    return { id: Number(info.lastInsertRowid), sessionId, at, kind, message, detail };
  }

  listEvents(sessionId: string): SessionEvent[] {
    const rows = this.sql('SELECT * FROM events WHERE session_id = ? ORDER BY id').all(sessionId) as {
      id: number;
      session_id: string;
      at: number;
      kind: SessionEventKind;
      message: string;
      detail: string;
    }[];
    return rows.map((r) => ({ id: r.id, sessionId: r.session_id, at: r.at, kind: r.kind, message: r.message, detail: JSON.parse(r.detail) }));
  }

  /** Adds a receipt and keeps the newest RECEIPTS_PER_SESSION of that session. */
  addReceipt(given: Omit<Receipt, 'id' | 'styled'> & { styled?: string | null }): Receipt {
    const receipt = { ...given, styled: given.styled ?? null };
    const add = this.db.transaction(() => {
      const info = this
        .sql('INSERT INTO receipts (session_id, exit_code, exit_signal, ended_at, reason, output, styled, usage) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(receipt.sessionId, receipt.exit.code, receipt.exit.signal, receipt.exit.at, receipt.reason, receipt.output, receipt.styled, receipt.usage ? JSON.stringify(receipt.usage) : null);
      this
        .sql(
          `DELETE FROM receipts WHERE session_id = ? AND id NOT IN
             (SELECT id FROM receipts WHERE session_id = ? ORDER BY id DESC LIMIT ?)`,
        )
        .run(receipt.sessionId, receipt.sessionId, RECEIPTS_PER_SESSION);
      return Number(info.lastInsertRowid);
    });
    return { ...receipt, id: add() };
  }

  listReceipts(sessionId: string, now: number): Receipt[] {
    const rows = this
      .sql('SELECT * FROM receipts WHERE session_id = ? AND ended_at > ? ORDER BY id DESC')
      .all(sessionId, now - RECEIPT_RETENTION_MS) as {
      id: number;
      session_id: string;
      exit_code: number | null;
      exit_signal: string | null;
      ended_at: number;
      reason: Receipt['reason'];
      output: string;
      styled: string | null;
      usage: string | null;
    }[];
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      exit: { code: r.exit_code, signal: r.exit_signal, at: r.ended_at },
      reason: r.reason,
      output: r.output,
      styled: r.styled,
      usage: r.usage === null ? null : (JSON.parse(r.usage) as Receipt['usage']),
    }));
  }

  /** Deletes receipts past the retention period; returns how many went. */
  expireReceipts(now: number): number {
    return this.sql('DELETE FROM receipts WHERE ended_at <= ?').run(now - RECEIPT_RETENTION_MS).changes;
  }
}

export interface TokenRow {
  id: string;
  name: string;
  hash: string;
  scope: 'read' | 'write';
  /** Set for a token that may act on one session only. */
  sessionId: string | null;
  /** Made by a running daemon (its local clients', an agent's hook); dies with that daemon. */
  ephemeral: boolean;
  /** The run of the daemon that made a temporary token (see Tokens.run); null for the others. */
  runId: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  /** A browser tab's: it ends once unused this long (since made, or last used); null for the others. */
  idleMs: number | null;
}

interface TokenRecord {
  id: string;
  name: string;
  hash: string;
  scope: 'read' | 'write';
  session_id: string | null;
  ephemeral: number;
  run_id: string | null;
  created_at: number;
  last_used_at: number | null;
  idle_ms: number | null;
}

const tokenOf = (r: TokenRecord): TokenRow => ({
  id: r.id,
  name: r.name,
  hash: r.hash,
  scope: r.scope,
  sessionId: r.session_id,
  ephemeral: r.ephemeral === 1,
  runId: r.run_id,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  idleMs: r.idle_ms,
});

export class TokenTable {
  /** Its statements are the store's, each prepared once. */
  constructor(private readonly sql: (text: string) => Database.Statement) {}

  insert(token: TokenRow): void {
    this
      .sql('INSERT INTO tokens (id, name, hash, scope, session_id, ephemeral, run_id, created_at, idle_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(token.id, token.name, token.hash, token.scope, token.sessionId, token.ephemeral ? 1 : 0, token.runId, token.createdAt, token.idleMs);
  }

  /** Deletes every token unused for longer than its idle time allows; returns how many went. */
  deleteIdle(now: number): number {
    return this.sql('DELETE FROM tokens WHERE idle_ms IS NOT NULL AND ? - COALESCE(last_used_at, created_at) > idle_ms').run(now).changes;
  }

  /** Deletes every temporary token not made by this run; returns how many went. */
  deleteEphemeralExcept(runId: string): number {
    return this.sql('DELETE FROM tokens WHERE ephemeral = 1 AND (run_id IS NULL OR run_id != ?)').run(runId).changes;
  }

  list(): TokenRow[] {
    return (this.sql('SELECT * FROM tokens ORDER BY created_at').all() as TokenRecord[]).map(tokenOf);
  }

  byHash(hash: string): TokenRow | undefined {
    const record = this.sql('SELECT * FROM tokens WHERE hash = ?').get(hash) as TokenRecord | undefined;
    return record && tokenOf(record);
  }

  delete(id: string): boolean {
    return this.sql('DELETE FROM tokens WHERE id = ?').run(id).changes > 0;
  }

  touch(id: string, at: number): void {
    this.sql('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }
}

function migrate(db: Database.Database, file: string, migrations: Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new MigrationError(
      `${file} is at schema version ${current}, newer than this Corral knows (${migrations.length}); ` +
        'it was left untouched: use the newer Corral that wrote it',
    );
  }
  let running = current;
  try {
    db.transaction(() => {
      for (; running < migrations.length; running++) {
        migrations[running]!.up(db);
        db.pragma(`user_version = ${running + 1}`);
      }
    })();
  } catch (err) {
    const step = migrations[running];
    throw new MigrationError(
      `upgrading ${file} failed at migration ${running + 1} (${step?.name ?? 'unknown'}): ${(err as Error).message}; ` +
        `the database was left untouched at version ${current}`,
    );
  }
}

/** The columns for the fields given (all of them for a whole row). */
function recordOf(patch: Partial<SessionRow>): Partial<SessionRecord> {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'lastExit') {
      const exit = value as ExitInfo | null;
      record.last_exit_code = exit?.code ?? null;
      record.last_exit_signal = exit?.signal ?? null;
      record.last_exit_at = exit?.at ?? null;
    } else if (key === 'worktree') {
      record.worktree = value === null ? null : JSON.stringify(value);
    } else {
      record[COLUMNS[key as keyof typeof COLUMNS]] = value;
    }
  }
  return record as Partial<SessionRecord>;
}

function fromRecord(r: SessionRecord): SessionRow {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS)) row[field] = r[column];
  row.lastExit = r.last_exit_at === null ? null : { code: r.last_exit_code, signal: r.last_exit_signal, at: r.last_exit_at };
  row.worktree = r.worktree === null ? null : (JSON.parse(r.worktree) as SessionWorktree);
  return row as unknown as SessionRow;
}
