// A CLI that keeps its sessions in SQLite (opencode): the key of the session a launch made is
// read from it, and so is whether a key's session is still there.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../catalogue/catalogue';
import { findKeyInDb, sessionInDb, type SessionsDb } from '../catalogue/sessionsDb';

describe("a CLI's sessions database", () => {
  let root: string;
  let spec: SessionsDb;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-sdb-'));
    const db = new Database(path.join(root, 'opencode.db'));
    db.exec('CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT NOT NULL, time_created INTEGER NOT NULL)');
    const add = db.prepare('INSERT INTO session VALUES (?, ?, ?)');
    add.run('ses_old', '/w/app', 1_000);
    add.run('ses_other_folder', '/w/other', 5_000);
    add.run('ses_taken', '/w/app', 5_000);
    add.run('ses_mine', '/w/app', 6_000);
    add.run('ses_child', '/w/app', 7_000);
    db.close();
    spec = { path: '$DATA/opencode.db', table: 'session', id: 'id', folder: 'directory', created: 'time_created' };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const env = () => ({ DATA: root });

  it("finds the session a launch made: this folder's oldest since the launch, not one another session holds", () => {
    expect(findKeyInDb(spec, { cwd: '/w/app', since: 5_000, taken: new Set(['ses_taken']), env: env() })).toBe('ses_mine');
    expect(findKeyInDb(spec, { cwd: '/w/app', since: 9_000, taken: new Set(), env: env() })).toBeNull();
    expect(findKeyInDb(spec, { cwd: '/w/none', since: 0, taken: new Set(), env: env() })).toBeNull();
    // Only one made when the session may own it (learnedKeys.ts: after a message it submitted).
    expect(findKeyInDb(spec, { cwd: '/w/app', since: 5_000, taken: new Set(['ses_taken']), env: env(), owns: (born) => born >= 6_500 })).toBe('ses_child');
  });

  it("knows whether a key's session is still there; no database at all holds none", () => {
    expect(sessionInDb(spec, 'ses_mine', env())).toBe(true);
    expect(sessionInDb(spec, 'ses_gone', env())).toBe(false);
    expect(sessionInDb(spec, "x' OR 1=1 --", env())).toBe(false);
    expect(sessionInDb({ ...spec, path: '$DATA/nothing.db' }, 'ses_mine', env())).toBe(false);
  });

  it('the catalogue takes plain SQL names only', () => {
    const file = path.join(root, 'clis.toml');
    fs.writeFileSync(file, `[cli.x]\ncommand = "x"\n[cli.x.sessions_db]\npath = "~/x.db"\ntable = "session; DROP TABLE session"\nid = "id"\nfolder = "directory"\ncreated = "time_created"\n`);
    const catalogue = loadCatalogue({ shippedFile: file, pathEnv: '' });
    expect(catalogue.problems.map((p) => p.message)).toEqual([`${file}:5: cli "x", field sessions_db.table: must be a plain SQL name (letters, digits, "_")`]);
  });
});
