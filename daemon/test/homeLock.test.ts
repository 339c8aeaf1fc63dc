// One engine per home, whatever the timing: engines started at once after a crash never both
// take it, and a lock file left by a crash never keeps a home from its next engine, even when
// a reboot gave its process id to another program.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HomeLock } from '../home/homeLock';
import { waitFor } from './support/wait';

const RACER = path.resolve('out/test/lockRacer.mjs');

beforeAll(async () => {
  await build({ entryPoints: ['daemon/test/support/lockRacer.ts'], outfile: RACER, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'silent' });
});

let home: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-lock-'));
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child)));
  fs.rmSync(home, { recursive: true, force: true });
});

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts racers at once; resolves with what each said. */
async function race(count: number): Promise<{ said: string[]; racers: ChildProcess[] }> {
  const outs: string[] = Array.from({ length: count }, () => '');
  const racers = outs.map((_, i) => {
    const child = spawn(process.execPath, [RACER, home, `racer ${i}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.on('data', (d) => (outs[i] += d));
    children.push(child);
    return child;
  });
  const said = await waitFor(() => (outs.every((o) => o.includes('\n')) ? outs.map((o) => o.trim()) : null), 'every racer to say how it went');
  return { said, racers };
}

/** A lock file as a crashed engine leaves it, naming `pid`. */
function leftBehind(pid: number): void {
  fs.writeFileSync(path.join(home, 'daemon.lock'), JSON.stringify({ pid, holder: 'corral serve', host: os.hostname(), since: 1 }));
}

describe("a home's lock", () => {
  it('engines started at once, after one was killed, take it one only, every time', async () => {
    for (let round = 0; round < 4; round++) {
      const { said, racers } = await race(6);
      expect(said.filter((s) => s === 'HELD'), said.join(' | ')).toHaveLength(1);
      for (const refused of said.filter((s) => s !== 'HELD')) expect(refused).toMatch(new RegExp(`^REFUSED Corral home ${home} is in use by (racer \\d|another Corral engine)`));
      // The holder killed: its lock goes with it, its lock file stays behind.
      await stop(racers[said.indexOf('HELD')]!);
      await Promise.all(racers.map((r) => stop(r)));
      expect(fs.existsSync(path.join(home, 'daemon.lock'))).toBe(true);
    }
  });

  it('a lock file naming a process id now used by another program (after a reboot) keeps nobody out', async () => {
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    leftBehind(other.pid!);
    const lock = HomeLock.acquire(home, 'the next engine', Date.now());
    expect(HomeLock.read(path.join(home, 'daemon.lock'))).toMatchObject({ pid: process.pid, holder: 'the next engine' });
    // While it holds the home, another engine is refused and told who holds it.
    expect(() => HomeLock.acquire(home, 'a second engine', Date.now())).toThrow(new RegExp(`^Corral home ${home} is in use by the next engine \\(pid ${process.pid} on `));
    lock.release();
    HomeLock.acquire(home, 'after it', Date.now()).release();
  });
});
