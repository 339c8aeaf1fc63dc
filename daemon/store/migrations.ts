import type Database from 'better-sqlite3';

export interface Migration {
  /** Says what the migration does, for the error when it fails. */
  name: string;
  up(db: Database.Database): void;
}

/** Append only: a shipped migration is never edited. user_version = how many have run. */
export const MIGRATIONS: Migration[] = [
  {
    name: 'sessions, events and receipts',
    up(db) {
      db.exec(`
        CREATE TABLE sessions (
          id               TEXT PRIMARY KEY,
          name             TEXT NOT NULL,
          cli              TEXT NOT NULL,
          cwd              TEXT NOT NULL,
          backend          TEXT NOT NULL CHECK (backend IN ('tmux', 'pty')),
          state            TEXT NOT NULL CHECK (state IN ('stopped', 'starting', 'resuming', 'running', 'exited')),
          resume_key       TEXT,
          launch_mode      TEXT CHECK (launch_mode IN ('fresh', 'resume', 'fallback')),
          launch_count     INTEGER NOT NULL DEFAULT 0,
          launched_at      INTEGER,
          created_at       INTEGER NOT NULL,
          started_at       INTEGER,
          last_activity_at INTEGER,
          last_exit_code   INTEGER,
          last_exit_signal TEXT,
          last_exit_at     INTEGER,
          position         INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE events (
          id         INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          at         INTEGER NOT NULL,
          kind       TEXT NOT NULL,
          message    TEXT NOT NULL,
          detail     TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX events_by_session ON events(session_id, id);
        CREATE TABLE receipts (
          id          INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
          exit_code   INTEGER,
          exit_signal TEXT,
          ended_at    INTEGER NOT NULL,
          reason      TEXT NOT NULL,
          output      TEXT NOT NULL
        );
        CREATE INDEX receipts_by_session ON receipts(session_id, id);
      `);
    },
  },
  {
    name: 'API tokens',
    up(db) {
      db.exec(`
        CREATE TABLE tokens (
          id           TEXT PRIMARY KEY,
          name         TEXT NOT NULL,
          hash         TEXT NOT NULL UNIQUE,
          scope        TEXT NOT NULL CHECK (scope IN ('read', 'write')),
          session_id   TEXT REFERENCES sessions(id) ON DELETE CASCADE,
          ephemeral    INTEGER NOT NULL DEFAULT 0,
          created_at   INTEGER NOT NULL,
          last_used_at INTEGER
        );
      `);
    },
  },
  {
    name: 'archived sessions',
    up(db) {
      db.exec('ALTER TABLE sessions ADD COLUMN archived_at INTEGER');
    },
  },
  {
    // A temporary token belongs to the run of the daemon that made it; older ones (no run) die.
    name: 'runs of temporary tokens',
    up(db) {
      db.exec('ALTER TABLE tokens ADD COLUMN run_id TEXT');
    },
  },
  {
    name: 'first prompts',
    up(db) {
      db.exec('ALTER TABLE sessions ADD COLUMN first_prompt TEXT');
    },
  },
  {
    name: 'worktrees',
    up(db) {
      db.exec('ALTER TABLE sessions ADD COLUMN worktree TEXT');
    },
  },
  {
    name: 'usage on receipts',
    up(db) {
      db.exec('ALTER TABLE receipts ADD COLUMN usage TEXT');
    },
  },
  {
    name: 'remote hosts',
    up(db) {
      db.exec(`
        CREATE TABLE hosts (
          name       TEXT PRIMARY KEY,
          target     TEXT NOT NULL,
          corral     TEXT,
          created_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    name: 'colours on receipts',
    up(db) {
      db.exec('ALTER TABLE receipts ADD COLUMN styled TEXT');
    },
  },
  {
    name: "a browser tab's credential: how long it may go unused",
    up(db) {
      db.exec('ALTER TABLE tokens ADD COLUMN idle_ms INTEGER');
    },
  },
  {
    name: "repositories' setup commands the person allowed",
    up(db) {
      db.exec(`
        CREATE TABLE allowed_setups (
          repo       TEXT NOT NULL,
          command    TEXT NOT NULL,
          allowed_at INTEGER NOT NULL,
          PRIMARY KEY (repo, command)
        );
      `);
    },
  },
];
