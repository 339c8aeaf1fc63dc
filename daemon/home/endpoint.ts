// Where a running daemon says how to reach it: endpoint.json in its home, private to the user.
// Its clients (the CLI, MCP, the desktop app) read it; only the daemon that wrote it removes it.

import fs from 'node:fs';
import path from 'node:path';
import { writePrivate } from './home';

/** What endpoint.json holds (mode 0600). */
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
