// Viewers of tmux sessions at the edges of a process's life: one that asks while the process is
// still being started (the first session of a fresh daemon: the page shows it at once), one
// whose tmux client has ended, and ones that go right after typing (a tab let go as the person
// moves on), whose keys must still reach the agent whole. Against a real tmux server on the world's socket, through a tmux
// on PATH that can hold a spawn.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TmuxBackend } from '../backends/tmuxBackend';
import { Engine } from '../engine/engine';
import { waitFor } from './support/wait';
import { makeWorld, type World } from './support/world';
import { realTmux, tmuxBackendWith } from './support/wrappedTmux';
import { outputText } from './support/outputText';

let world: World | null = null;
let backend: TmuxBackend | null = null;
let engine: Engine | null = null;

afterEach(async () => {
  await engine?.close();
  await backend?.close();
  world?.cleanup();
  engine = backend = world = null;
});

describe('a viewer of a session whose process is still being started', () => {
  it('attaches once the spawn has returned, and gets the terminal, not a client that finds no session', async () => {
    world = makeWorld('early-viewer', { programs: ['faker'], clis: ['faker'] });
    // A tmux that holds the spawn's command file while `held` exists, as a loaded machine is slow to run it.
    const held = path.join(world.root, 'held');
    fs.writeFileSync(held, '');
    world.fake('tmux', `#!/bin/sh\ncase "$*" in *source-file*) while [ -e '${held}' ]; do sleep 0.02; done;; esac\nexec '${realTmux()}' "$@"\n`);
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    const calls: string[] = [];
    const spawn = backend.spawn.bind(backend);
    const attach = backend.attach.bind(backend);
    backend.spawn = async (spec) => {
      const made = await spawn(spec);
      calls.push('spawned');
      return made;
    };
    backend.attach = (id, options) => {
      calls.push('attach');
      return attach(id, options);
    };
    engine = await Engine.open({ home: world.home, backend, env: world.env, holder: 'a test engine' });
    const creating = engine.createSession({ cli: 'faker', cwd: world.root, name: 'first' });
    // The page sees it starting, and asks for its terminal at once.
    const { id } = await waitFor(async () => (await engine!.listSessions()).sessions.find((s) => s.state === 'starting'), 'the session to be starting');
    let seen = '';
    let ended = false;
    const text = outputText();
    const viewing = engine.attach(id, { cols: 100, rows: 30, onData: (data) => (seen += text(data)), onClose: () => (ended = true) });
    // A turn of the event loop for the viewer to reach the backend, were it not waiting.
    await new Promise((resolve) => setImmediate(resolve));
    fs.rmSync(held);

    expect((await creating).state).toBe('running');
    const viewer = await viewing;
    await waitFor(() => seen.includes('FRESH START'), 'the agent’s output in the viewer');
    expect(calls).toEqual(['spawned', 'attach']);
    expect(ended).toBe(false);
    viewer.close();
  });
});

describe('a viewer whose tmux client ended', () => {
  it('takes a resize and keys without ending the daemon (its terminal is gone)', async () => {
    world = makeWorld('ended-viewer', { programs: [], clis: [] });
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    backend = tmuxBackendWith(world, {});
    await backend.open(() => {});
    await backend.spawn({ id: 'one', file: replier, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.capture('one', 10)).includes('ready'), 'the agent');
    let ended = false;
    const viewer = await backend.attach('one', { cols: 80, rows: 24, onData: () => {}, onClose: () => (ended = true) });

    // Its client goes (as one that attached to a session about to close does); the page's resize comes after.
    // The attach returns once the client is started; on a busy machine it may not have reached the server yet.
    const clients = () => execFileSync('tmux', ['-L', world!.socket, 'list-clients', '-t', '=corral-one'], { encoding: 'utf8' });
    await waitFor(() => clients().trim() !== '', 'the viewer’s client to reach the tmux server');
    execFileSync('tmux', ['-L', world.socket, 'detach-client', '-s', '=corral-one'], { stdio: 'ignore' });
    await waitFor(() => ended, 'the viewer’s client to end');
    expect(() => viewer.resize(100, 30)).not.toThrow();
    expect(() => viewer.write('x')).not.toThrow();
    viewer.close();
    expect(await backend.isAlive('one')).toBe(true);
  });
});

describe('a viewer that closes right after typing', () => {
  it("leaves its keys to its tmux client until it has read them: the whole line reaches the agent, however late the client runs", async () => {
    world = makeWorld('typed-then-gone', { programs: [], clis: [] });
    const log = path.join(world.root, 'lines.log');
    const reader = world.fake('reader', `#!/bin/sh\necho ready\nwhile IFS= read -r line; do echo "$line" >> '${log}'; done\n`);
    backend = tmuxBackendWith(world, {});
    await backend.open(() => {});
    await backend.spawn({ id: 'one', file: reader, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.capture('one', 10)).includes('ready'), 'the agent');
    const viewer = await backend.attach('one', { cols: 80, rows: 24, onData: () => {} });
    const clientPid = () => execFileSync('tmux', ['-L', world!.socket, 'list-clients', '-t', '=corral-one', '-F', '#{client_pid}'], { encoding: 'utf8' }).trim();
    await waitFor(() => clientPid() !== '', 'the viewer’s client to reach the tmux server');
    const pid = Number(clientPid());
    // The client is not run for a while (a loaded machine): the keys wait in its terminal.
    process.kill(pid, 'SIGSTOP');
    try {
      viewer.write('the whole line\r');
      viewer.close();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('the whole line\n'), 'the line in the agent');
    // And the client goes once they have had their time.
    await waitFor(() => clientPid() === '', 'the viewer’s client to go', 10_000);
  });
});

describe('a viewer that closes while its keys wait for the resize they caused', () => {
  it('has them typed, in order, before it goes', async () => {
    world = makeWorld('keys-behind-resize', { programs: [], clis: [] });
    const log = path.join(world.root, 'lines.log');
    world.fake('reader', `#!/bin/sh\necho ready\nwhile IFS= read -r line; do echo "$line" >> '${log}'; done\n`);
    world.writeCatalogue('[cli.reader]\ncommand = "reader"\n');
    // A tmux that holds a resize while `held` exists, as a busy server is slow to run it.
    const held = path.join(world.root, 'held');
    world.fake('tmux', `#!/bin/sh\ncase "$1 $2 $3 $4 $5 $6 $7 $8" in *resize-window*) while [ -e '${held}' ]; do sleep 0.02; done;; esac\nexec '${realTmux()}' "$@"\n`);
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    engine = await Engine.open({ home: world.home, backend, env: world.env, holder: 'a test engine' });
    const { id } = await engine.createSession({ cli: 'reader', cwd: world.root, name: 'reader' });
    await waitFor(async () => (await backend!.capture(id, 10)).includes('ready'), 'the agent');
    const viewer = await engine.attach(id, { cols: 100, rows: 30, onData: () => {} });
    fs.writeFileSync(held, '');
    // Typing makes this viewer's size the agent's: the keys wait for that resize…
    viewer.write('typed while it resized\r');
    // …and the viewer goes before it is done.
    viewer.close();
    fs.rmSync(held);
    await waitFor(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('typed while it resized\n'), 'the line in the agent');
  });
});

describe('text typed into a session that ends meanwhile', () => {
  it('is refused as a conflict that says the session ended, not an internal error', async () => {
    world = makeWorld('typed-into-gone', { programs: ['faker'], clis: ['faker'] });
    backend = tmuxBackendWith(world, {});
    engine = await Engine.open({ home: world.home, backend, env: world.env, holder: 'a test engine' });
    const { id } = await engine.createSession({ cli: 'faker', cwd: world.root, name: 'short-lived' });
    await waitFor(async () => (await backend!.capture(id, 10)).includes('FRESH START'), 'the agent');
    // Its tmux session goes from under the engine, before it has noticed.
    execFileSync('tmux', ['-L', world.socket, 'kill-session', '-t', `=corral-${id}`]);
    const refused = await engine.write({ id, text: 'a'.repeat(1_000) }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: 'conflict' });
    expect((refused as Error).message).toMatch(/short-lived/);
  });
});
