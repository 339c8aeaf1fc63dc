// Temporary tokens (the local clients' token in endpoint.json, each agent's hook token) die
// with the daemon that made them, a kill -9 included; the tokens a person made stay. A browser
// tab's credential outlives a restart, and ends once unused for a day.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAB_IDLE_MS, Tokens } from '../auth/tokens';
import { Store } from '../store/store';
import { makeRig } from './support/rig';
import { waitFor } from './support/wait';
import { serveRig, type Served } from './support/serveRig';

let s: Served;

beforeAll(async () => {
  const rig = await makeRig();
  rig.fake('hooked', `#!/bin/bash\nenv | grep ^CORRAL_ > '${rig.conversations}/hook.tmp'\nmv '${rig.conversations}/hook.tmp' '${rig.conversations}/hook.env'\nexec cat\n`);
  fs.appendFileSync(path.join(rig.home, 'clis.toml'), '\n[cli.hooked]\ncommand = "hooked"\n');
  s = await serveRig([], rig);
});
afterAll(async () => {
  await s.rig.cleanup();
});

const ephemeralRows = () => {
  const db = new Database(path.join(s.rig.home, 'corral.db'), { readonly: true });
  try {
    return (db.prepare('SELECT name FROM tokens WHERE ephemeral = 1 ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
};

describe('temporary tokens', () => {
  it('are refused by the next daemon after a kill -9, while a made token keeps working', async () => {
    const made = s.cli(['token', 'create', 'kept']).stdout.trim();
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'hooked', cwd: s.rig.home, name: 'hooked' } })).body.id as string;
    const envFile = path.join(s.rig.conversations, 'hook.env');
    const hook = /^CORRAL_SESSION_TOKEN=(.*)$/m.exec(await waitFor(() => (fs.existsSync(envFile) ? fs.readFileSync(envFile, 'utf8') : ''), 'the hook environment'))![1]!;
    const local = s.token;
    expect((await s.api('POST', `/api/sessions/${id}/attention`, { token: hook })).status).toBe(200);
    expect((await s.api('GET', '/api/sessions', { token: local })).status).toBe(200);

    // A crash: nothing of the daemon's own shutdown runs.
    const gone = new Promise((resolve) => s.child.once('exit', resolve));
    s.child.kill('SIGKILL');
    await gone;
    s = await serveRig([], s.rig);
    expect(s.token).not.toBe(local);

    // The agent outlived the daemon (tmux), and its session is reattached; its old token is not.
    expect((await s.api('GET', `/api/sessions/${id}`)).body.state).toBe('running');
    expect((await s.api('POST', `/api/sessions/${id}/attention`, { token: hook })).status).toBe(401);
    expect((await s.api('GET', '/api/sessions', { token: local })).status).toBe(401);
    const ws = s.ws('/api/events', { token: local });
    expect(await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)))).toBe(401);
    expect((await s.api('GET', '/api/sessions', { token: made })).status).toBe(200);
    // And they are gone from the database, not only refused: the new daemon's own local token is the one left.
    expect(ephemeralRows()).toEqual(['local clients']);
  });
});

describe("a browser tab's credential", () => {
  it('outlives a restart of the daemon, and is listed and revoked as any token', async () => {
    const printed = s.cli(['url']);
    const code = printed.stdout.trim().split('#code=')[1]!;
    const tab = (await s.api('POST', '/api/auth/exchange', { token: null, body: { code } })).body.token as string;
    const gone = new Promise((resolve) => s.child.once('exit', resolve));
    s.child.kill('SIGKILL');
    await gone;
    s = await serveRig([], s.rig);
    expect((await s.api('GET', '/api/sessions', { token: tab })).status).toBe(200);
    const listed = s.cli(['token', 'list']).stdout.split('\n').filter((line) => line.includes('  a browser tab  '));
    expect(listed).toEqual([expect.stringMatching(/^tok_[0-9a-f]{8} {2}read-write {2}a browser tab {2}\(made .*, last used .*\)$/)]);
    expect(s.cli(['token', 'revoke', listed[0]!.split(' ')[0]!]).code).toBe(0);
    expect((await s.api('GET', '/api/sessions', { token: tab })).status).toBe(401);
  });

  it('ends once unused for a day: refused, and gone from the database and the list', () => {
    const dir = fs.mkdtempSync(path.join(s.rig.root, 'tokens-'));
    const store = Store.open(path.join(dir, 'corral.db'));
    try {
      let now = 1_000_000;
      const tokens = new Tokens(store, () => now);
      const { secret, info } = tokens.create('a browser tab', { idleMs: TAB_IDLE_MS });
      // Used within the day, again and again: it goes on.
      for (let day = 0; day < 3; day++) {
        now += TAB_IDLE_MS - 60_000;
        expect(tokens.verify(secret)?.id).toBe(info.id);
      }
      expect(tokens.list().map((t) => t.id)).toEqual([info.id]);
      now += TAB_IDLE_MS + 1;
      expect(tokens.list()).toEqual([]);
      expect(tokens.verify(secret)).toBeNull();
      // A token a person made has no such end.
      const made = tokens.create('kept');
      now += 10 * TAB_IDLE_MS;
      expect(tokens.verify(made.secret)?.id).toBe(made.info.id);
    } finally {
      store.close();
    }
  });
});
