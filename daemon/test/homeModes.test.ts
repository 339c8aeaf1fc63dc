// Every file Corral keeps in its home is the user's alone (0600), even when the home already
// existed, an older file was left readable, and the umask is the usual 022.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/wait';
import { serveRig, type Served } from './support/serveRig';

let s: Served;
let umask: number;

beforeAll(async () => {
  // The forks pool runs each test file in a process of its own: its umask is this file's to set.
  umask = process.umask(0o022);
  s = await serveRig();
});
afterAll(async () => {
  await s?.rig.cleanup();
  process.umask(umask);
});

/** Every file under a folder with its permission bits, but the user's own catalogue. */
function modes(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || entry.name === 'clis.toml') continue;
    found[path.relative(dir, file)] = (fs.statSync(file).mode & 0o777).toString(8);
  }
  return found;
}

const allPrivate = (found: Record<string, string>) => Object.fromEntries(Object.keys(found).map((name) => [name, '600']));

describe("the home's files", () => {
  it('are 0600 in a home that already existed, with a umask of 022, a readable database left over included', async () => {
    expect((fs.statSync(s.rig.home).mode & 0o777).toString(8)).toBe('755');
    await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'busy' } });
    const found = await waitFor(() => {
      const now = modes(s.rig.home);
      return ['corral.db', 'corral.db-wal', 'corral.db-shm', 'daemon.lock', 'endpoint.json'].every((f) => f in now) ? now : null;
    }, 'the daemon to have written its files');
    expect(found).toEqual(allPrivate(found));

    // A database an older Corral (or a copy) left readable is made private when it is opened.
    await s.stop();
    for (const file of ['corral.db', 'corral.db-wal', 'corral.db-shm']) if (fs.existsSync(path.join(s.rig.home, file))) fs.chmodSync(path.join(s.rig.home, file), 0o644);
    s = await serveRig([], s.rig);
    const again = modes(s.rig.home);
    expect(again).toEqual(allPrivate(again));
    expect(again).toHaveProperty('corral.db');
  });

  it('`corral token create` in a fresh home makes the database 0600', () => {
    const home = path.join(s.rig.home, '..', 'fresh-home');
    const made = s.cli(['token', 'create', 'x', '--home', home]);
    expect(made.code).toBe(0);
    expect(modes(home)).toEqual(allPrivate(modes(home)));
    expect((fs.statSync(home).mode & 0o777).toString(8)).toBe('700');
  });
});
