// One engine per home. What decides is a lock the operating system holds for the engine's
// process (SQLite's exclusive lock on `daemon.hold`, a POSIX record lock): two engines starting
// at once cannot both take it, and it goes with its process however that ends (kill -9, a
// crash, a reboot), so no stale lock is ever judged by a process id a reboot may have given to
// another program. The lock file beside it (`daemon.lock`) names the holder, so a second engine
// can say who.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CorralError } from '../contract/errors';
import { makePrivate, writePrivate } from './home';

export interface LockHolder {
  pid: number;
  holder: string;
  host: string;
  since: number;
  /** Where the holder can be reached, when it serves an API. */
  url?: string;
}

export class HomeLock {
  private constructor(
    readonly file: string,
    private readonly mine: LockHolder,
    private readonly hold: Database.Database,
  ) {}

  static acquire(home: string, holder: string, now: number): HomeLock {
    const file = path.join(home, 'daemon.lock');
    const mine: LockHolder = { pid: process.pid, holder, host: os.hostname(), since: now };
    const hold = takeHold(path.join(home, 'daemon.hold'));
    const current = HomeLock.read(file);
    // Held by another engine; or by an older Corral, which holds a home by its lock file alone.
    if (!hold || (current && current.pid !== process.pid && olderHolderAlive(current))) {
      hold?.close();
      if (!current) throw new CorralError('home_locked', `Corral home ${home} is in use by another Corral engine, which is starting or stopping`);
      const since = new Date(current.since).toISOString();
      throw new CorralError(
        'home_locked',
        `Corral home ${home} is in use by ${current.holder} (pid ${current.pid} on ${current.host}, since ${since}${current.url ? `, ${current.url}` : ''})`,
      );
    }
    try {
      writePrivate(file, JSON.stringify(mine));
    } catch (err) {
      hold.close();
      throw err;
    }
    return new HomeLock(file, mine, hold);
  }

  static read(file: string): LockHolder | null {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    } catch {
      return null;
    }
  }

  /** Adds where the holder can be reached (e.g. the API's URL). */
  update(extra: Partial<Pick<LockHolder, 'url' | 'holder'>>): void {
    Object.assign(this.mine, extra);
    writePrivate(this.file, JSON.stringify(this.mine));
  }

  release(): void {
    const current = HomeLock.read(this.file);
    if (current && current.pid === this.mine.pid && current.since === this.mine.since) fs.rmSync(this.file, { force: true });
    this.hold.close();
  }
}

/** The exclusive lock on `file`, held while the connection is open; null when another holds it. */
function takeHold(file: string): Database.Database | null {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  makePrivate(file);
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

/**
 * Whether the process a lock file names (one no engine holds the lock for: an older Corral's) is
 * still running Corral. Its process id, on Linux, must also still be a Corral's: a reboot may
 * have given that number to another program.
 */
function olderHolderAlive(holder: LockHolder): boolean {
  if (holder.host !== os.hostname()) return true; // cannot tell: assume it is
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return /corral/i.test(fs.readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
}
