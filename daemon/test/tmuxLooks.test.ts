// What the tmux backend's looks at its panes cost: none while nothing happens, a fresh one as
// soon as a pane printed or a pane's process went. Counted with a tmux on PATH that logs each
// command it is given, against a real tmux server on the world's socket.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TmuxBackend } from '../backends/tmuxBackend';
import type { ProcessExit } from '../backends/backend';
import { loggingTmux, realTmux, tmuxBackendWith } from './support/wrappedTmux';
import { waitFor } from './support/wait';
import { killTmux } from './support/tmux';
import { makeWorld, type World } from './support/world';

let world: World | null = null;
let backend: TmuxBackend | null = null;

afterEach(async () => {
  await backend?.close();
  world?.cleanup();
  backend = world = null;
});

describe('the tmux backend’s looks at its panes', () => {
  it('cost no tmux process while no pane printed, and look again once one printed or its process ended', async () => {
    world = makeWorld('looks', { programs: [], clis: [] });
    const calls = loggingTmux(world);
    const replier = world.fake('replier', '#!/bin/bash\necho ready\nwhile read -r line; do echo "got $line"; done\n');
    const looks = () => calls().filter((line) => line.includes('list-panes')).length;

    // The backend's tmux is the one on PATH when it is made.
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    const exits: [string, ProcessExit][] = [];
    await backend.open((id, exit) => exits.push([id, exit]));
    const env = { PATH: world.env.PATH!, HOME: world.home, TERM: 'xterm-256color' };
    await backend.spawn({ id: 'one', file: replier, args: [], cwd: world.root, env, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.capture('one', 10)).includes('ready'), 'the agent');

    // The first look after the output asks tmux; while nothing prints, the next ones do not.
    const [first] = await backend.list();
    expect(first?.id).toBe('one');
    const before = looks();
    for (let i = 0; i < 5; i++) expect((await backend.list()).map((p) => p.id)).toEqual(['one']);
    expect(looks()).toBe(before);

    // The pane prints: the next look asks tmux again.
    await backend.write('one', 'hello\r');
    await waitFor(async () => (await backend!.capture('one', 10)).includes('got hello'), 'the reply');
    await backend.list();
    expect(looks()).toBeGreaterThan(before);

    // The pane's process ends without a word: the next look asks tmux, and finds it gone.
    const quiet = looks();
    await backend.list();
    expect(looks()).toBe(quiet);
    process.kill(first!.pid!, 'SIGKILL');
    await waitFor(async () => (await backend!.list()).length === 0, 'the look to find the pane gone');
    expect(looks()).toBeGreaterThan(quiet);
    await waitFor(() => exits.find(([id]) => id === 'one'), 'the exit to be reported');
  });
});

describe('the tmux backend’s open, told without tmux', () => {
  const spawnOne = (w: World, b: TmuxBackend, file: string) => b.spawn({ id: 'one', file, args: [], cwd: w.root, env: { PATH: w.env.PATH!, HOME: w.home }, cols: 80, rows: 24 });
  /** The backend closed and a new one of the same home opened: its first tmux command looks at the panes, and finds the agent. */
  const reopenFindsTheAgent = async (w: World, calls: () => string[]) => {
    await backend!.close();
    const before = calls().length;
    backend = tmuxBackendWith(w, { PATH: w.env.PATH });
    await backend.open(() => {});
    expect(calls().slice(before)[0]).toMatch(/list-panes/);
    expect((await backend.list()).map((p) => p.id)).toEqual(['one']);
  };

  it('runs no tmux process before its home’s first spawn, and waits on the server once a spawn started it; the next open looks at its panes', async () => {
    world = makeWorld('noserver', { programs: [], clis: [] });
    const calls = loggingTmux(world);
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    await backend.open(() => {});
    expect(await backend.list()).toEqual([]);
    await spawnOne(world, backend, replier);
    await waitFor(() => calls().some((line) => line.includes('wait-for')), 'the watcher to wait on the new server');
    // Before the spawn, nothing: no look, no client waiting on a server that was not there.
    expect(calls()[0]).toMatch(/start-server ; source-file /);

    // The next daemon of this home finds the agent.
    await reopenFindsTheAgent(world, calls);

    // Its server gone, socket and all (a reboot): the next open asks tmux nothing.
    await backend.close();
    killTmux(world.socket);
    const after = calls().length;
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    await backend.open(() => {});
    expect(await backend.list()).toEqual([]);
    expect(calls().slice(after)).toEqual([]);
  });

  it('looks at its panes when its tmux keeps the socket elsewhere than where it is looked for', async () => {
    world = makeWorld('elsewhere', { programs: [], clis: [] });
    const elsewhere = path.join(world.root, 'sockets');
    fs.mkdirSync(elsewhere);
    const calls = loggingTmux(world, `TMUX_TMPDIR='${elsewhere}' `);
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    try {
      backend = tmuxBackendWith(world, { PATH: world.env.PATH });
      await backend.open(() => {});
      await spawnOne(world, backend, replier);
      await reopenFindsTheAgent(world, calls);
    } finally {
      await backend?.close();
      backend = null;
      execFileSync(realTmux(), ['-L', world.socket, 'kill-server'], { env: { ...process.env, TMUX_TMPDIR: elsewhere }, stdio: 'ignore' });
    }
  });
});

describe('the tmux backend’s look at many screens', () => {
  it('is one tmux process for all of them, each screen its own; a session gone among them costs only its own', async () => {
    world = makeWorld('screens', { programs: [], clis: [] });
    const calls = loggingTmux(world);
    const captures = () => calls().filter((line) => line.includes('capture-pane')).length;
    // Each prints its name, and a line that looks like the look's own markers (but cannot be one).
    const printer = world.fake('printer', '#!/bin/bash\necho "screen of $1"\necho "corral-screen-0000000000000000 two"\nexec cat\n');
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    await backend.open(() => {});
    const env = { PATH: world.env.PATH!, HOME: world.home, TERM: 'xterm-256color' };
    for (const id of ['one', 'two', 'three']) await backend.spawn({ id, file: printer, args: [id], cwd: world.root, env, cols: 80, rows: 24 });
    for (const id of ['one', 'two', 'three']) await waitFor(async () => (await backend!.visible(id)).includes(`screen of ${id}`), `${id}'s screen`);

    const before = captures();
    const screens = await backend.visibleAll(['one', 'two', 'three']);
    expect(captures() - before).toBe(1);
    for (const id of ['one', 'two', 'three']) expect(screens.get(id)).toBe(await backend.visible(id));
    expect(screens.get('two')).toBe('screen of two\ncorral-screen-0000000000000000 two');

    // One asked for is gone: the others are still seen.
    const others = await backend.visibleAll(['one', 'gone', 'three']);
    expect([...others.keys()].sort()).toEqual(['one', 'three']);
    expect(others.get('three')).toContain('screen of three');
    expect(await backend.visibleAll([])).toEqual(new Map());
  });
});

describe('a look then typing (a submit’s text)', () => {
  it('is one tmux process: the screen as it was before the keys, then the keys, however long', async () => {
    world = makeWorld('look-type', { programs: [], clis: [] });
    const logged = loggingTmux(world);
    // The backend's own looks and waits go on beside: only the commands that read or type count.
    const calls = () => logged().filter((line) => /capture-pane|send-keys/.test(line)).length;
    const counter = world.fake('counter', '#!/bin/bash\necho ready\nwhile IFS= read -r line; do echo "got ${#line} chars"; done\n');
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    await backend.open(() => {});
    const env = { PATH: world.env.PATH!, HOME: world.home, TERM: 'xterm-256color' };
    await backend.spawn({ id: 'one', file: counter, args: [], cwd: world.root, env, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.visible('one')).includes('ready'), 'the agent');

    const before = calls();
    const screen = await backend.lookThenWrite('one', 'short\r');
    expect(calls() - before).toBe(1);
    expect(screen).toBe('ready');
    await waitFor(async () => (await backend!.visible('one')).includes('got 5 chars'), 'the keys');

    // Longer than one send-keys carries: the rest follows, in order.
    const long = 'x'.repeat(3000);
    expect(await backend.lookThenWrite('one', `${long}\r`)).toBe('ready\nshort\ngot 5 chars');
    await waitFor(async () => (await backend!.visible('one')).includes('got 3000 chars'), 'all of the long line');
  });
});

describe('the tmux backend without a locale', () => {
  it('still reads its panes (a tmux client outside UTF-8 would print its field separator as "_")', async () => {
    world = makeWorld('nolocale', { programs: [], clis: [] });
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    // A daemon started over ssh, or by `env -i`, has none of these.
    backend = tmuxBackendWith(world, { LANG: undefined, LC_ALL: undefined, LC_CTYPE: undefined });
    const exits: string[] = [];
    await backend.open((id) => exits.push(id));
    await backend.spawn({ id: 'plain', file: replier, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.capture('plain', 10)).includes('ready'), 'the agent');
    expect((await backend.list()).map((p) => p.id)).toEqual(['plain']);
    expect(await backend.isAlive('plain')).toBe(true);
    expect(exits).toEqual([]);
  });
});

describe('a look that answers late', () => {
  it('is not kept over a spawn made meanwhile (a "no server" answer would hide the new pane)', async () => {
    world = makeWorld('late', { programs: [], clis: [] });
    // A tmux whose first failure (no server yet) reaches the daemon late, as on a loaded machine.
    const armed = path.join(world.root, 'armed');
    const answered = path.join(world.root, 'answered');
    world.fake('tmux', `#!/bin/sh\nout=$('${realTmux()}' "$@" 2>"$0.err.$$"); rc=$?\nif [ $rc -ne 0 ] && [ -e '${armed}' ]; then rm -f '${armed}'; touch '${answered}'; sleep 2; fi\nprintf '%s' "$out"; [ -n "$out" ] && echo\ncat "$0.err.$$" >&2; rm -f "$0.err.$$"\nexit $rc\n`);
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    await backend.open(() => {});
    fs.writeFileSync(armed, '');
    // A look is asked while there is no server; tmux says so, and the spawn starts one before that answer reaches the backend.
    const early = backend.isAlive('late');
    await waitFor(() => fs.existsSync(answered), 'tmux to have answered the look');
    await backend.spawn({ id: 'late', file: replier, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    expect(await early).toBe(false);
    expect((await backend.list()).map((p) => p.id)).toEqual(['late']);
  });
});

describe('a spawn', () => {
  it('is one tmux process, which says the pane’s process', async () => {
    world = makeWorld('onespawn', { programs: [], clis: [] });
    const calls = loggingTmux(world);
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    // Not opened: no watcher looks meanwhile.
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    const before = calls().length;
    const spawned = await backend.spawn({ id: 'one', file: replier, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    expect(calls().slice(before)).toEqual([expect.stringMatching(/start-server ; source-file /)]);
    expect(spawned.pid).toBeGreaterThan(0);
    expect((await backend.list()).map((p) => [p.id, p.pid])).toEqual([['one', spawned.pid]]);
  });

  it('over the dead pane of an earlier launch reports that exit first, then starts', async () => {
    world = makeWorld('respawn', { programs: [], clis: [] });
    // The watcher's wait for the pane-died signal never ends: only the spawn itself finds the dead pane.
    world.fake('tmux', `#!/bin/sh\ncase "$*" in *"wait-for -S"*) ;; *wait-for*) exec sleep 600;; esac\nexec '${realTmux()}' "$@"\n`);
    const quitter = world.fake('quitter', '#!/bin/sh\nexit 3\n');
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    backend = tmuxBackendWith(world, { PATH: world.env.PATH });
    const exits: [string, number | null][] = [];
    await backend.open((id, exit) => exits.push([id, exit.code]));
    const env = { PATH: world.env.PATH!, HOME: world.home };
    await backend.spawn({ id: 'again', file: quitter, args: [], cwd: world.root, env, cols: 80, rows: 24 });
    const deadTime = () => execFileSync(realTmux(), ['-L', world!.socket, 'list-panes', '-a', '-F', '#{pane_dead_time}'], { encoding: 'utf8' }).trim();
    await waitFor(() => deadTime() !== '', 'the first launch’s pane to be dead, with its status');
    const spawned = await backend.spawn({ id: 'again', file: replier, args: [], cwd: world.root, env, cols: 80, rows: 24 });
    expect(exits).toEqual([['again', 3]]);
    await waitFor(async () => (await backend!.capture('again', 10)).includes('ready'), 'the second launch');
    expect((await backend.list()).map((p) => [p.id, p.pid])).toEqual([['again', spawned.pid]]);
  });
});
