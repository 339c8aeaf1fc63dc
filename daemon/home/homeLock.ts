// One engine per home. The lock file names its holder, so a second engine can say who.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/errors';
import { writePrivate } from './home';

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
  ) {}

  static acquire(home: string, holder: string, now: number): HomeLock {
    const file = path.join(home, 'daemon.lock');
    const mine: LockHolder = { pid: process.pid, holder, host: os.hostname(), since: now };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writePrivate(file, JSON.stringify(mine), 'wx');
        return new HomeLock(file, mine);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const current = HomeLock.read(file);
      if (current && isAlive(current)) {
        const since = new Date(current.since).toISOString();
        throw new CorralError(
          'home_locked',
          `Corral home ${home} is in use by ${current.holder} (pid ${current.pid} on ${current.host}, since ${since}${current.url ? `, ${current.url}` : ''})`,
        );
      }
      // The holder is gone (a crash): the lock is stale.
      fs.rmSync(file, { force: true });
    }
    throw new CorralError('home_locked', `Corral home ${home} is being taken by another engine at this moment; try again`);
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
  }
}

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== os.hostname()) return true; // cannot tell: assume it is
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
