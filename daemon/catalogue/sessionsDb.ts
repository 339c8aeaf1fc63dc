// CLIs that keep their sessions in a SQLite database of their own (opencode): the catalogue names
// the file, the table and its columns, and Corral reads it, read-only, to learn the key of the
// session a launch made (the CLI never prints it) and to know whether a key's conversation is
// still there. Nothing but those names reaches SQL; the values are bound.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { expandPath, type KeyFileSearch } from './keyFiles';

export interface SessionsDb {
  /** The database file: absolute; may start with ~/ and hold $VAR, ${VAR}, ${VAR:-default}. */
  path: string;
  table: string;
  /** Columns: the session id (the key), its folder, and when it was made (epoch ms). */
  id: string;
  folder: string;
  created: string;
}

/** A SQL name the catalogue may give: letters, digits and underscores. */
export const SQL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function open(spec: SessionsDb, env: Record<string, string | undefined>): Database.Database | null {
  const file = expandPath(spec.path, env);
  if (!fs.existsSync(file)) return null;
  // The CLI writes it meanwhile (WAL): a reader never blocks it, and waits a little for it.
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  return db;
}

/** The key of the oldest session made in the folder since the launch, not already taken; or null. */
export function findKeyInDb(spec: SessionsDb, search: KeyFileSearch): string | null {
  const db = open(spec, search.env);
  if (!db) return null;
  try {
    // The folder as Corral named it, or as the CLI's getcwd() sees it (symlinks resolved), as for key files.
    const folders = [...new Set([search.cwd, realpathOr(search.cwd)])];
    const marks = folders.map(() => '?').join(', ');
    const rows = db
      .prepare(`SELECT "${spec.id}" AS id, "${spec.created}" AS born FROM "${spec.table}" WHERE "${spec.folder}" IN (${marks}) AND "${spec.created}" >= ? ORDER BY "${spec.created}" LIMIT 20`)
      .all(...folders, search.since - 1_000) as { id: unknown; born: unknown }[];
    const found = rows.find((row) => !search.taken.has(String(row.id)) && (!search.owns || search.owns(Number(row.born))));
    return found ? String(found.id) : null;
  } finally {
    db.close();
  }
}

/** Whether the database holds the session of `key`: true, false, or null when there is no database to ask. */
export function sessionInDb(spec: SessionsDb, key: string, env: Record<string, string | undefined>): boolean | null {
  const db = open(spec, env);
  if (!db) return false;
  try {
    return db.prepare(`SELECT 1 FROM "${spec.table}" WHERE "${spec.id}" = ? LIMIT 1`).get(key) !== undefined;
  } finally {
    db.close();
  }
}

function realpathOr(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}
