import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** CORRAL_HOME, or ~/.corral. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.CORRAL_HOME || path.join(os.homedir(), '.corral'));
}

/** Where a running daemon says how to reach it: private to the user (mode 0600). */
export interface Endpoint {
  url: string;
  pid: number;
  /** A token for this user's local clients, valid while that daemon runs. */
  token: string;
}

export function endpointFile(home: string): string {
  return path.join(home, 'endpoint.json');
}

export function writeEndpoint(home: string, endpoint: Endpoint): void {
  const file = endpointFile(home);
  const temp = `${file}.${process.pid}.tmp`;
  writePrivate(temp, JSON.stringify(endpoint));
  fs.renameSync(temp, file);
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

export function readEndpoint(home: string): Endpoint | null {
  try {
    const endpoint = JSON.parse(fs.readFileSync(endpointFile(home), 'utf8')) as Endpoint;
    process.kill(endpoint.pid, 0);
    return endpoint;
  } catch {
    return null;
  }
}

export function removeEndpoint(home: string, pid: number): void {
  try {
    const endpoint = JSON.parse(fs.readFileSync(endpointFile(home), 'utf8')) as Endpoint;
    if (endpoint.pid === pid) fs.rmSync(endpointFile(home), { force: true });
  } catch {
    // nothing to remove
  }
}
