// The tmux runner's commands start from a thread of their own once it is up (a process started on
// the daemon's thread held its event loop): the same output, and the same errors, either way.

import { execFileSync } from 'node:child_process';
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
  it('starts its commands from its thread once that is up, with the answers and errors it gives on its own', async () => {
    world = makeWorld('runner', { programs: [], clis: [] });
    const env = minimalEnv(world.env.PATH!);
    const runner = new TmuxRunner(world.socket, env, 5_000);
    // The first command starts here, and the thread with it.
    expect(await runner.run(['-V'])).toMatch(/^tmux \d/);
    await waitFor(() => starter.ready, 'the thread to be up');
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
});
