// The tmux runner's commands start from the daemon's starter once it is up (a process started on
// the daemon's thread held its event loop): the same output, and the same errors, either way.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxError, TmuxRunner } from '../backends/tmuxRunner';
import { starter } from '../util/startProcess';
import { minimalEnv } from '../backends/tmuxCommands';
import { waitFor } from './support/wait';
import { killTmux } from './support/tmux';
import { makeWorld, type World } from './support/world';

let world: World | null = null;

afterEach(() => {
  if (world) killTmux(world.socket);
  world?.cleanup();
  world = null;
});

const failure = (run: Promise<string>) => run.then(() => null, (err: unknown) => err as TmuxError);

describe('the tmux runner', () => {
  it('starts its commands from the starter once that is up, with the answers and errors it gives on its own', async () => {
    world = makeWorld('runner', { programs: [], clis: [] });
    const env = minimalEnv(world.env.PATH!);
    const runner = new TmuxRunner(world.socket, env, 5_000);
    // The first command starts here, and the starter with it.
    expect(await runner.run(['-V'])).toMatch(/^tmux \d/);
    await waitFor(() => starter.ready, 'the starter to be up');
    const before = starter.startedThere;

    expect(await runner.run(['-V'])).toMatch(/^tmux \d/);
    const noServer = await failure(runner.run(['list-sessions']));
    expect(noServer).toBeInstanceOf(TmuxError);
    expect(TmuxRunner.isNoServer(noServer)).toBe(true);
    await runner.run(['new-session', '-d', '-s', 'made', 'sleep 60']);
    expect(await runner.run(['list-sessions', '-F', '#{session_name}'])).toBe('made\n');
    expect(execFileSync('tmux', ['-L', world.socket, 'list-sessions', '-F', '#{session_name}'], { encoding: 'utf8' })).toBe('made\n');

    const missing = await failure(new TmuxRunner(world.socket, env, 5_000, 'no-such-tmux-here').run(['-V']));
    expect(missing?.message).toBe('no-such-tmux-here is not installed or not on PATH');
    const slow = world.fake('slow-tmux', '#!/bin/sh\nexec sleep 30\n');
    const late = await failure(new TmuxRunner(world.socket, env, 200, slow).run(['list-sessions']));
    expect(late?.message).toBe(`tmux list-sessions did not answer within 200 ms (socket ${world.socket})`);

    expect(starter.startedThere - before).toBe(6);
  });

  it('runs a command a person waits for through a client started ahead, with the answers and errors of its own process, and ends it when closed', async () => {
    world = makeWorld('runner', { programs: [], clis: [] });
    const env = minimalEnv(world.env.PATH!);
    // A tmux that logs each start of it: what ran through a client started ahead is not there.
    const log = path.join(world.root, 'starts.log');
    const tmux = world.fake('logged-tmux', `#!/bin/sh\nprintf '%s' "$*" | tr '\\n' ' ' >> '${log}'\necho >> '${log}'\nexec tmux "$@"\n`);
    const starts = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
    const runner = new TmuxRunner(world.socket, env, 5_000, tmux);
    await runner.run(['new-session', '-d', '-s', 'made', '-x', '40', '-y', '5', 'seq 1 20; exec sleep 60']);
    await waitFor(() => starter.ready, 'the starter to be up');
    await waitFor(async () => (await runner.run(['capture-pane', '-p', '-t', '=made:'])).includes('20'), 'the pane to print');

    // The words a command file would read otherwise: quotes, $, ;, #, a backslash, a newline.
    const look = ['display-message', '-p', '-t', '=made:', 'a "b" $HOME ; #{pane_height} \\ c\nd', ';', 'capture-pane', '-p', '-t', '=made:', '-S', '-3', '-E', '-1'];
    const own = await runner.run(look);
    expect(own).toBe('a "b" $HOME ; 5 \\ c\nd\n14\n15\n16\n');
    // The first has none ready: it runs as `run` does, and one is started ahead for the next.
    expect(await runner.runReady(look)).toBe(own);
    await waitFor(() => starts().at(-1)?.endsWith('source-file -'), 'a client started ahead');
    const before = starts().length;
    expect(await runner.runReady(look)).toBe(own);
    // That one ran it: no tmux started for it, only the next one ahead.
    await waitFor(() => starts().length === before + 1, 'the next client started ahead');
    expect(starts().slice(before)).toEqual([`-u -L ${world.socket} -f /dev/null source-file -`]);

    // A failing command fails as its own process does.
    const missing = ['capture-pane', '-p', '-t', '=gone:'];
    const ownError = await failure(runner.run(missing));
    expect(ownError?.message).toBe('tmux capture-pane failed: can\'t find session: gone');
    const mark = starts().length;
    expect((await failure(runner.runReady(missing)))?.message).toBe(ownError?.message);
    await waitFor(() => starts().length === mark + 1, 'the next client started ahead');
    expect(starts().at(-1)).toBe(`-u -L ${world.socket} -f /dev/null source-file -`);

    // A client started ahead of a server that then ended is not used: the command runs on its own.
    killTmux(world.socket);
    await runner.run(['new-session', '-d', '-s', 'made', '-x', '40', '-y', '5', 'seq 1 20; exec sleep 60']);
    await waitFor(async () => (await runner.run(['capture-pane', '-p', '-t', '=made:'])).includes('20'), 'the pane to print again');
    expect(await runner.runReady(look)).toBe(own);

    // Closed, the runner ends the client that waits and starts none.
    await waitFor(() => waiting(world!.socket) === 1, 'a client waiting');
    runner.close();
    await waitFor(() => waiting(world!.socket) === 0, 'the client to end');
    expect(await runner.runReady(look)).toBe(own);
    expect(waiting(world.socket)).toBe(0);
  });
});

/** tmux clients of this socket waiting for their commands on stdin. */
function waiting(socket: string): number {
  const ps = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(`-L ${socket} `) && line.endsWith('source-file -')).length;
}
