// The engine outlives what goes wrong around it: failed periodic jobs, a tmux server killed under
// it, a create that cannot start.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Backend } from '../backends/backend';
import { PtyBackend } from '../backends/ptyBackend';
import type { Engine } from '../engine/engine';
import { makeRig, storedKey, type Rig } from './support/rig';
import { waitFor } from './support/wait';

describe('what goes wrong around the engine', () => {
  let rig: Rig;
  let engine: Engine;
  beforeEach(async () => {
    rig = await makeRig();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rig.cleanup();
  });

  it('a failing backend call in a periodic job is logged once and the job goes on', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void logged.push(String(line)));
    const real = new PtyBackend();
    let failing = false;
    let failures = 0;
    // Every call the periodic jobs make fails while `failing` is set, as a dead tmux would.
    const flaky: Backend = new Proxy(real, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (failing && ['list', 'visible', 'capture'].includes(String(prop))) {
            failures++;
            return Promise.reject(new Error(`tmux ${String(prop)} failed`));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    engine = await rig.open({ backend: flaky, reapIntervalMs: 20, attentionIntervalMs: 20 });
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'flaky' });
    failing = true;
    await waitFor(() => logged.some((l) => l.includes('the idle reaper failed')) && logged.some((l) => l.includes('the screen watcher failed')), 'both jobs to log');
    const seen = failures;
    await waitFor(() => failures >= seen + 10, 'more ticks that fail');
    // The same failure is not logged on every tick.
    expect(logged.filter((l) => l.includes('the idle reaper failed'))).toHaveLength(1);
    failing = false;
    await waitFor(() => logged.some((l) => l.includes('the idle reaper works again')), 'the reaper to recover');
    await engine.write({ id: session.id, text: 'still\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: still'), 'the session to answer');
  });

  it('a tmux server killed under the engine: its sessions are exited within seconds, with the reason, keys kept, and start resumes them', async () => {
    engine = await rig.open({ backend: 'tmux' });
    const a = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'a' });
    const b = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'b' });
    for (const s of [a, b]) {
      await waitFor(async () => (await engine.screen({ id: s.id })).text.includes('FRESH START'), 'the start');
      await engine.write({ id: s.id, text: 'hi\r' });
      await waitFor(async () => (await engine.screen({ id: s.id })).text.includes('echo: hi'), 'the conversation');
    }
    execFileSync('tmux', ['-L', rig.socket, 'kill-server']);
    for (const s of [a, b]) {
      await waitFor(async () => (await engine.getSession({ id: s.id })).state === 'exited', 'the exit', 5_000);
      const last = (await engine.events({ id: s.id })).events.at(-1);
      expect(last?.message).toBe('the tmux server ended');
      expect((await engine.getSession({ id: s.id })).needsYou?.detail).toBe('the tmux server ended');
      expect(storedKey(rig, s.id)).toBe(s.id);
    }
    expect((await engine.startSession({ id: a.id })).resumed).toBe(true);
    await waitFor(async () => (await engine.screen({ id: a.id })).text.includes(`RESUMED ${a.id}`), 'the resume on a new server');
  });

  it('a create that cannot start leaves no session behind, and neither does one cut short by a crash', async () => {
    engine = await rig.open({ backend: 'pty' });
    const cwd = rig.home;
    vi.spyOn(engine.backend, 'spawn').mockImplementationOnce(() => Promise.reject(new Error('posix_spawnp failed')));
    await expect(engine.createSession({ cli: 'faker', cwd, name: 'never' })).rejects.toThrow(/could not start Faker: posix_spawnp failed/);
    expect((await engine.listSessions()).sessions).toEqual([]);

    // A row written by a create whose engine died before the start (as a kill -9 would leave it).
    await engine.close();
    const { Store } = await import('../store/store');
    const store = Store.open(`${rig.home}/corral.db`);
    store.insertSession({ id: 'half-made', name: 'half', cli: 'faker', cwd, backend: 'pty', state: 'stopped', resumeKey: null, launchMode: null, launchCount: 0, launchedAt: null, createdAt: 1, startedAt: null, lastActivityAt: null, lastExit: null, position: 0, archivedAt: null, firstPrompt: null, worktree: null });
    store.close();
    engine = await rig.open({ backend: 'pty' });
    expect((await engine.listSessions()).sessions).toEqual([]);
  });

  it('a launch is counted before its process starts, and one a crash left uncounted is still a launch: kept with its key, reattached while it runs, found gone after', async () => {
    engine = await rig.open({ backend: 'tmux' });
    const launches = (id: string) => {
      const db = new Database(path.join(rig.home, 'corral.db'), { readonly: true });
      try {
        return (db.prepare('SELECT launch_count AS n FROM sessions WHERE id = ?').get(id) as { n: number }).n;
      } finally {
        db.close();
      }
    };
    // Held in its spawn: counted already, with its key.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const spawn = engine.backend.spawn.bind(engine.backend);
    let spawning = '';
    vi.spyOn(engine.backend, 'spawn').mockImplementationOnce(async (spec) => {
      spawning = spec.id;
      await gate;
      return spawn(spec);
    });
    const creating = engine.createSession({ cli: 'faker', cwd: rig.home, name: 'launched' });
    await waitFor(() => spawning !== '', 'the spawn');
    expect(launches(spawning)).toBe(1);
    expect(storedKey(rig, spawning)).toBe(spawning);
    release();
    const session = await creating;
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('FRESH START'), 'the start');
    await engine.write({ id: session.id, text: 'hi\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: hi'), 'the conversation');

    // As an older Corral killed between the spawn and its count left it: uncounted.
    const uncount = async () => {
      await engine.close();
      const db = new Database(path.join(rig.home, 'corral.db'));
      db.prepare('UPDATE sessions SET launch_count = 0 WHERE id = ?').run(session.id);
      db.close();
    };
    await uncount();
    engine = await rig.open({ backend: 'tmux' });
    expect((await engine.getSession({ id: session.id })).state).toBe('running');
    expect(launches(session.id)).toBe(1);
    // Uncounted again, and its process gone with its tmux server: still a session, its key kept.
    await uncount();
    execFileSync('tmux', ['-L', rig.socket, 'kill-server']);
    engine = await rig.open({ backend: 'tmux' });
    expect((await engine.getSession({ id: session.id })).state).toBe('stopped');
    expect(storedKey(rig, session.id)).toBe(session.id);
    expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes(`RESUMED ${session.id}`), 'the resume');
  });

  it('a daemon that cannot finish starting (its disk full as it makes its token) leaves nothing listening', async () => {
    engine = await rig.open({ backend: 'pty' });
    const { publish } = await import('../transports/http/publish');
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    vi.spyOn(engine.tokens, 'create').mockImplementationOnce(() => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    });
    await expect(publish(engine, { host: '127.0.0.1', port, allowRemote: false, webRoot: null, holder: 'a test' })).rejects.toThrow('database or disk is full');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(fs.existsSync(path.join(rig.home, 'endpoint.json'))).toBe(false);
  });

  it('a stop ends a CLI that ignores the hangup too (tmux): nothing of the session keeps running', async () => {
    const pidFile = path.join(rig.conversations, 'stubborn.pid');
    rig.fake('stubborn', `#!/bin/bash\ntrap '' HUP\necho $$ > '${pidFile}'\necho STUBBORN READY\nwhile :; do sleep 0.2; done\n`);
    fs.appendFileSync(path.join(rig.home, 'clis.toml'), '\n[cli.stubborn]\ncommand = "stubborn"\n');
    engine = await rig.open();
    const session = await engine.createSession({ cli: 'stubborn', cwd: rig.home, name: 'stubborn' });
    const pid = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 'the CLI to say its pid'));
    await engine.stopSession({ id: session.id });
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(() => !alive(), 'the CLI that ignores SIGHUP to be gone after the stop');
    expect((await engine.getSession({ id: session.id })).state).toBe('stopped');
  });
});
