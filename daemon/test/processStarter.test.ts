// The daemon's processes (tmux commands, git) start from a small process of its own once that is
// up, not from the daemon: a fork of the daemon held its event loop. That starter goes with the
// daemon, however the daemon ends.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { Starter, startProcess, starter, type ProcessCommand, type ProcessOutcome } from '../util/startProcess';
import { startServe, daemonEnv, request, type Serving } from './support/serve';
import { killTmux } from './support/tmux';
import { waitFor } from './support/wait';
import { makeWorld, type World } from './support/world';

let world: World | null = null;
let serving: Serving | null = null;

afterEach(async () => {
  await serving?.stop();
  serving = null;
  if (world) killTmux(world.socket);
  world?.cleanup();
  world = null;
});

/** The parent of a process, from /proc; null once it is gone (or ended, not yet reaped: a zombie's parent may never reap it). */
function parentOf(pid: number): number | null {
  try {
    const [state, parent] = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return state === 'Z' ? null : Number(parent);
  } catch {
    return null;
  }
}

/** Output, an exit's code and stderr, input, and a time limit, the same wherever processes start. */
async function expectOutcomes(start: (command: ProcessCommand) => Promise<ProcessOutcome>, startedThere: () => number): Promise<void> {
  const before = startedThere();
  const failed = await start(command('echo out; echo err >&2; exit 3'));
  expect(failed).toMatchObject({ stdout: 'out\n', stderr: 'err\n', failed: { code: 3 } });
  expect((await start({ ...command('cat'), input: 'given é\n' })).stdout).toBe('given é\n');
  const late = await start({ ...command('exec sleep 30'), timeout: 200 });
  expect(late.failed?.killed).toBe(true);
  expect(startedThere() - before).toBe(3);
}

const command = (script: string) => ({ file: 'sh', args: ['-c', script], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeout: 5_000 });

/** The pids of a process's children running `node -e`: the starter's process. */
function startersOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && parentOf(Number(name)) === pid)
    .map(Number)
    .filter((child) => {
      try {
        return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').slice(1, 2).join() === '-e';
      } catch {
        return false;
      }
    });
}

describe('the starter of processes', () => {
  it('starts processes from a process of its own once it is up, with their output and errors', async () => {
    // The first starts here, and the starter with it.
    expect((await startProcess(command('echo $PPID'))).stdout.trim()).toBe(String(process.pid));
    await waitFor(() => starter.ready, 'the starter to be up');
    const there = Number((await startProcess(command('echo $PPID'))).stdout.trim());
    expect(there).not.toBe(process.pid);
    expect(parentOf(there)).toBe(process.pid);
    expect(startersOf(process.pid)).toEqual([there]);
    await expectOutcomes(startProcess, () => starter.startedThere);
  });

  it('starts them from a thread where it is told to (inside Electron), with the same outcomes', async () => {
    const threaded = new Starter('thread');
    const start = (c: ProcessCommand) => new Promise<ProcessOutcome>((resolve) => threaded.run(c, resolve));
    await start(command('true'));
    await waitFor(() => threaded.ready, 'the thread to be up');
    // A thread's fork is a child of this process.
    expect((await start(command('echo $PPID'))).stdout.trim()).toBe(String(process.pid));
    await expectOutcomes(start, () => threaded.startedThere);
  });

  it('killed, fails what it had not answered (which may have run) rather than run it again, and what comes after starts here', async () => {
    const others = new Set(startersOf(process.pid));
    const own = new Starter('process');
    const start = (c: ProcessCommand) => new Promise<ProcessOutcome>((resolve) => own.run(c, resolve));
    await start(command('true'));
    await waitFor(() => own.ready, 'the starter to be up');
    const [pid] = startersOf(process.pid).filter((p) => !others.has(p));
    const marks = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corral-starter-')), 'ran');
    try {
      const pending = start(command(`echo $$ > '${marks}.pid'; echo ran >> '${marks}'; exec sleep 30`));
      await waitFor(() => fs.existsSync(marks), 'the command to run');
      // (What the starter ran goes on to its end without it: this one is ended by the test.)
      const ran = Number(fs.readFileSync(`${marks}.pid`, 'utf8'));
      onTestFinished(() => void process.kill(ran, 'SIGKILL'));
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      process.kill(pid!, 'SIGKILL');
      expect(await pending).toMatchObject({ failed: { message: 'its starter ended before it answered' } });
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('the process that starts the daemon\'s processes ended'));
      logged.mockRestore();
      expect(fs.readFileSync(marks, 'utf8')).toBe('ran\n');
      expect((await start(command('echo $PPID'))).stdout.trim()).toBe(String(process.pid));
    } finally {
      fs.rmSync(path.dirname(marks), { recursive: true, force: true });
    }
  });

  it('goes with a corral serve that is killed', async () => {
    world = makeWorld('starter', { programs: ['faker'], clis: ['faker'] });
    serving = await startServe(daemonEnv(world));
    const pid = serving.child.pid!;
    // Its first tmux commands start the starter.
    const token = execFileSync(process.execPath, ['out/cli/corral.cjs', 'token', 'create', 'starter'], { env: daemonEnv(world), encoding: 'utf8' }).trim();
    const made = await request(serving.url, 'POST', '/api/sessions', { token, body: { cli: 'faker', cwd: world.root, name: 'one' } });
    expect(made.status).toBe(201);
    await waitFor(() => startersOf(pid).length === 1, 'the daemon to start its starter');
    const [starterPid] = startersOf(pid);

    serving.child.kill('SIGKILL');
    await waitFor(() => parentOf(starterPid!) === null, 'the starter to go with the daemon');
  });
});
