// A home (CORRAL_HOME): the folder of one engine's state, and how its private files are written.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** CORRAL_HOME, or ~/.corral. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.CORRAL_HOME || path.join(os.homedir(), '.corral'));
}

/**
 * Writes a file only this user may read or write (0600). A `mode` given to writeFileSync only
 * applies when the file is made, so a file left over with another mode is set at open, too.
 */
export function writePrivate(file: string, text: string, flag: 'w' | 'wx' = 'w'): void {
  const fd = fs.openSync(file, flag, 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes an existing file (if it is there) this user's alone. */
export function makePrivate(file: string): void {
  try {
    fs.chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
