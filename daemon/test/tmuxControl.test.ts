// The tmux backend's control client (tmuxControl.ts): once a server runs, the backend's commands
// go over it and answer as a tmux process's would; an answer is read whole, whatever its lines
// look like; when the server goes, the backend says so and goes on without it; closing takes its
// session away, so a server with no Corral session left ends as it did without it.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProcessExit } from '../backends/backend';
import { TmuxBackend } from '../backends/tmuxBackend';
import { PANE_FORMAT } from '../backends/tmuxCommands';
import { controlSession } from '../backends/tmuxControl';
import { TmuxRunner } from '../backends/tmuxRunner';
import { waitFor } from './support/wait';
import { makeWorld, type World } from './support/world';

describe('the tmux control client', () => {
  let world: World;
  let backend: TmuxBackend;
  const exits: [string, ProcessExit][] = [];
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', world.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const runnerOf = (b: TmuxBackend) => (b as unknown as { runner: TmuxRunner }).runner;
  const spawn = (id: string) =>
    backend.spawn({ id, file: path.join(world.bin, 'faker'), args: [id], cwd: world.root, env: { PATH: world.env.PATH!, TERM: 'xterm-256color' }, cols: 80, rows: 24 });

  beforeEach(async () => {
    world = makeWorld('control', { programs: ['faker'], clis: ['faker'] });
    exits.length = 0;
    backend = new TmuxBackend({ socket: world.socket, home: world.home, runDir: path.join(world.root, 'run') });
    await backend.open((id, exit) => exits.push([id, exit]));
  });
  afterEach(async () => {
    await backend.close();
    world.cleanup();
  });

  it('carries the commands once a server runs, answering as a tmux process does, refusals included', async () => {
    expect(runnerOf(backend).control).toBeNull();
    await spawn('one');
    const control = runnerOf(backend).control;
    expect(control?.open).toBe(true);
    expect(await runnerOf(backend).run(['list-panes', '-a', '-F', PANE_FORMAT])).toBe(tmux('list-panes', '-a', '-F', PANE_FORMAT));
    expect((await backend.list()).map((p) => p.id)).toEqual(['one']);
    const refused = await runnerOf(backend)
      .run(['kill-session', '-t', '=corral-nosuch'])
      .catch((err: unknown) => err);
    expect(TmuxRunner.isNoServer(refused)).toBe(true);
    // Lines that read like the end of an answer (an agent could print them) are part of it.
    expect(await runnerOf(backend).run(['display-message', '-p', 'a\n%%end 0 0 1\n%%error 0 0 1\nb'])).toBe('a\n%end 0 0 1\n%error 0 0 1\nb\n');
    await backend.write('one', 'hello\r');
    await waitFor(async () => (await backend.capture('one', 10)).includes('echo: hello'), 'the echo');
    expect(runnerOf(backend).control).toBe(control);
  });

  it("reads an agent's screen whole, lines like the end of an answer and all, as a tmux process does", async () => {
    const printer = world.fake('printer', "#!/bin/bash\nprintf 'h\\303\\251llo \\342\\234\\223\\n%%end 0 0 1\\n%%begin 0 1 1\\n%%error 0 0 1\\nlast\\n'\nexec cat\n");
    await backend.spawn({ id: 'two', file: printer, args: [], cwd: world.root, env: { PATH: world.env.PATH!, TERM: 'xterm-256color', LANG: 'C.UTF-8' }, cols: 80, rows: 24 });
    await waitFor(async () => (await backend.capture('two', 10)).includes('last'), 'the lines');
    const screen = await backend.capture('two', 10);
    expect(screen).toBe('héllo ✓\n%end 0 0 1\n%begin 0 1 1\n%error 0 0 1\nlast');
    expect(await runnerOf(backend).run(['capture-pane', '-p', '-J', '-t', '=corral-two:'])).toBe(tmux('capture-pane', '-p', '-J', '-t', '=corral-two:'));
    // The client still answers in order after it.
    expect((await backend.list()).map((p) => p.id)).toEqual(['two']);
    expect(runnerOf(backend).control?.open).toBe(true);
  });

  it('when the server goes: the exits are reported, and the next spawn attaches a new client', async () => {
    await spawn('one');
    const first = runnerOf(backend).control;
    tmux('kill-server');
    await waitFor(() => exits.some(([id]) => id === 'one'), 'the exit');
    expect(exits[0]?.[1].ended).toBe('the tmux server ended');
    expect(first?.open).toBe(false);
    await spawn('two');
    expect(runnerOf(backend).control?.open).toBe(true);
    expect(runnerOf(backend).control).not.toBe(first);
    expect((await backend.list()).map((p) => p.id)).toEqual(['two']);
  });

  it('closing takes the control session away: a server with no session of Corral left ends', async () => {
    await spawn('one');
    expect(tmux('list-sessions', '-F', '#{session_name}').split('\n')).toContain(controlSession((backend as unknown as { homeTag: string }).homeTag));
    expect(await backend.kill('one')).not.toBeNull();
    await backend.close();
    await waitFor(() => {
      try {
        tmux('list-sessions');
        return false;
      } catch {
        return true;
      }
    }, 'the server to end');
  });
});
