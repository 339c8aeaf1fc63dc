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
  fs.writeFileSync(temp, JSON.stringify(endpoint), { mode: 0o600 });
  fs.renameSync(temp, file);
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
