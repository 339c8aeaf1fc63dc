// Seed 001 in our terms: after the engine is killed (kill -9) and a new one opens the same
// home, live sessions are reattached, the rest are stopped with their keys, and no CLI is
// launched again. The argv log of the fake CLI proves it; the positive control proves the
// log would show a relaunch.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeRig, storedKey, type Rig } from './support/rig';
import { waitFor } from './support/wait';

const HOST = path.resolve('out/test/engineHost.mjs');

beforeAll(async () => {
  await build({
    entryPoints: ['daemon/test/support/engineHost.ts'],
    outfile: HOST,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
});

async function runHost(rig: Rig, backend: 'tmux' | 'pty', sessions: object[]): Promise<{ child: ChildProcess; ids: string[] }> {
  const child = spawn(process.execPath, [HOST], {
    env: { ...rig.env, CORRAL_TEST_ORDERS: JSON.stringify({ home: rig.home, socket: rig.socket, backend, sessions }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('READY ')), `the engine host (stderr: ${err})`, 20_000);
  return { child, ids: JSON.parse(line.slice('READY '.length)) };
}

function crash(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('after a crash of the engine', () => {
  const strays: number[] = [];
  let rig: Rig;
  let host: ChildProcess | null = null;
  beforeEach(async () => {
    rig = await makeRig();
  });
  afterEach(async () => {
    // Should the engine fail to end them, the test does.
    for (const pid of strays.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (host && host.exitCode === null && host.signalCode === null) await crash(host);
    await rig.cleanup();
  });

  it('live sessions are reattached, lost ones stopped with their keys, and nothing is launched again', async () => {
    const cwd = rig.home;
    const started = await runHost(rig, 'tmux', [
      { name: 'alive', cli: 'faker', cwd, type: 'hi' },
      { name: 'lost', cli: 'faker', cwd, type: 'hi' },
      { name: 'ended', cli: 'faker', cwd, type: 'hi' },
    ]);
    host = started.child;
    const [alive, lost, ended] = started.ids as [string, string, string];
    expect(rig.launches()).toHaveLength(3);

    await crash(host);
    // While no engine runs: one tmux session disappears entirely, one agent is killed.
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', rig.socket, ...args]).toString();
    tmux('kill-session', '-t', `=corral-${lost}`);
    const endedPid = Number(tmux('display-message', '-p', '-t', `=corral-${ended}:`, '#{pane_pid}').trim());
    process.kill(endedPid, 'SIGTERM');
    await waitFor(() => tmux('display-message', '-p', '-t', `=corral-${ended}:`, '#{pane_dead}').trim() === '1', 'the agent to die');

    const engine = await rig.open();
    expect((await engine.getSession({ id: alive })).state).toBe('running');
    expect((await engine.events({ id: alive })).events.at(-1)?.kind).toBe('reattached');
    await engine.write({ id: alive, text: 'still here\r' });
    await waitFor(async () => (await engine.screen({ id: alive })).text.includes('echo: still here'), 'the reattached agent to answer');

    expect((await engine.getSession({ id: lost })).state).toBe('stopped');
    expect((await engine.events({ id: lost })).events.at(-1)?.message).toBe('its process was gone when Corral came back');
    expect(storedKey(rig, lost)).toBe(lost);

    const endedView = await engine.getSession({ id: ended });
    expect(endedView.state).toBe('exited');
    expect(endedView.lastExit?.signal).toBe('SIGTERM');
    expect((await engine.events({ id: ended })).events.at(-1)?.message).toBe('ended by SIGTERM while Corral was not running');
    expect((await engine.receipt({ id: ended })).receipt?.output).toContain('echo: hi');
    expect(storedKey(rig, ended)).toBe(ended);

    // Nothing was launched by the new engine on its own.
    expect(rig.launches()).toHaveLength(3);

    // Positive control: a start does launch, and the log shows it.
    expect((await engine.startSession({ id: lost })).resumed).toBe(true);
    await waitFor(() => rig.launches().length === 4, 'the relaunch to be logged');
    expect(rig.launches()[3]).toBe(`faker resume ${lost}`);
  });

  it('with the pty backend the agents end with the engine, and come back stopped with their keys', async () => {
    const started = await runHost(rig, 'pty', [{ name: 'p', cli: 'faker', cwd: rig.home, type: 'hi' }]);
    host = started.child;
    const [id] = started.ids as [string];
    await crash(host);
    const engine = await rig.open({ backend: 'pty' });
    expect((await engine.getSession({ id })).state).toBe('stopped');
    expect((await engine.events({ id })).events.at(-1)?.kind).toBe('found-gone');
    expect(storedKey(rig, id)).toBe(id);
    expect(rig.launches()).toHaveLength(1);
    expect((await engine.startSession({ id })).resumed).toBe(true);
    await waitFor(() => rig.launches()[1] === `faker resume ${id}`, 'the resume');
  });

  it('with the pty backend, agents a crashed engine left running (they ignore the hangup) are ended by the next one, never shown stopped while they run', async () => {
    // Like a real Gemini CLI: a parent and a child, neither of which ends on the terminal's hangup.
    const pids = path.join(rig.home, 'pids');
    rig.fake('hupless', `#!/bin/bash\ntrap '' HUP\nsleep 600 &\necho "$$ $!" > '${pids}'\necho "FRESH START $2"\nwait\n`);
    rig.writeCatalogue(`${fs.readFileSync(path.join(rig.home, 'clis.toml'), 'utf8')}\n[cli.hupless]\ncommand = "hupless"\nargs = ["fresh", "{id}"]\nresume = ["resume", "{cli_session_id}"]\n`);
    const started = await runHost(rig, 'pty', [{ name: 'stubborn', cli: 'hupless', cwd: rig.home }]);
    host = started.child;
    const [id] = started.ids as [string];
    const [parent, child] = (await waitFor(() => (fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim() : ''), 'the agent to start')).split(' ').map(Number) as [number, number];
    strays.push(parent, child);
    await crash(host);
    // The bug this guards against: both are still running, under nobody.
    expect(isAlive(parent) && isAlive(child)).toBe(true);

    const engine = await rig.open({ backend: 'pty' });
    expect(isAlive(parent) || isAlive(child)).toBe(false);
    const view = await engine.getSession({ id });
    expect(view.state).toBe('stopped');
    expect(view.resumable).toBe(true);
    const last = (await engine.events({ id })).events.at(-1);
    expect(last?.kind).toBe('found-gone');
    expect(last?.message).toBe('it was still running after Corral crashed, with no terminal to show it: it was ended, and start resumes it');
    expect(last?.detail.endedPids).toEqual(expect.arrayContaining([parent, child]));
  });

  it('a resumed session reattached by a new engine keeps its key when it ends soon after: what was typed before the restart is not known', async () => {
    // A grace window long enough that the exit below falls inside it, however slow the machine.
    let engine = await rig.open({ backend: 'tmux', resumeGraceMs: 20_000 });
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'typed before' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('FRESH START'), 'the start');
    await engine.write({ id: session.id, text: 'hi\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: hi'), 'the conversation');
    await engine.stopSession({ id: session.id });
    expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes(`RESUMED ${session.id}`), 'the resume');
    // Typed into, then the engine gone (a kill -9 would do the same), and the agent ends under the next one.
    await engine.write({ id: session.id, text: 'crash-later\r' });
    await engine.close();
    engine = await rig.open({ backend: 'tmux', resumeGraceMs: 20_000 });
    expect((await engine.getSession({ id: session.id })).state).toBe('running');
    fs.writeFileSync(path.join(rig.conversations, 'CRASH_NOW'), '');
    await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', 'the exit');
    expect(storedKey(rig, session.id)).toBe(session.id);
    expect((await engine.events({ id: session.id })).events.map((e) => e.kind)).not.toContain('resume-failed');
    // What it left, as text and with its colours, without tmux's notice of a dead pane under it.
    const { receipt } = await engine.receipt({ id: session.id });
    for (const kept of [receipt?.output, receipt?.styled]) {
      expect(kept).toContain('crashing');
      expect(kept).not.toContain('Pane is dead');
    }
    await engine.close();
  });

  it("a session found gone shows no output rather than an earlier run's as its own", async () => {
    let engine = await rig.open({ backend: 'tmux' });
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'twice' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('FRESH START'), 'the start');
    await engine.write({ id: session.id, text: 'the first run\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: the first run'), 'the first run');
    await engine.stopSession({ id: session.id });
    expect((await engine.receipt({ id: session.id })).receipt?.output).toContain('echo: the first run');
    await engine.startSession({ id: session.id });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes(`RESUMED ${session.id}`), 'the second run');
    // Its process gone while no engine was there (a stop cut short by a crash, a reboot).
    await engine.close();
    execFileSync('tmux', ['-L', rig.socket, 'kill-server']);
    engine = await rig.open({ backend: 'tmux' });
    expect((await engine.getSession({ id: session.id })).state).toBe('stopped');
    expect((await engine.receipt({ id: session.id })).receipt).toMatchObject({ reason: 'found-gone', output: '' });
    expect((await engine.screen({ id: session.id })).text).not.toContain('the first run');
    expect(storedKey(rig, session.id)).toBe(session.id);
    await engine.close();
  });

  it('a second engine on the same home is refused and names the holder', async () => {
    const started = await runHost(rig, 'tmux', []);
    host = started.child;
    await expect(rig.open()).rejects.toThrow(
      new RegExp(`^Corral home ${rig.home} is in use by the crash-test host \\(pid ${host.pid} on .+, since \\d{4}-`),
    );
    // Once the holder is gone (even by kill -9), the home can be opened.
    await crash(host);
    const engine = await rig.open();
    expect((await engine.listSessions()).sessions).toEqual([]);
    expect(fs.existsSync(path.join(rig.home, 'daemon.lock'))).toBe(true);
  });
});

function isAlive(pid: number): boolean {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}
