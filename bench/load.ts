// `--loaded`: every core kept busy by a bounded background load, the way a person's builds and
// browser keep a machine busy. One spinning process per core at nice 0 (the same as the
// benchmark's), stopped by the benchmark at the end, on a failure or on Ctrl-C; each also ends
// by itself when the benchmark is gone or after a time limit, so none can outlive it.

import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { percentOfCore, sampleCpu, ticksPerSecond } from './cpu';

/** Spins, and every 50 ms looks whether its parent is still the one that started it and its time is up. */
const SPINNER = `
const fs = require('node:fs');
const parent = () => Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[1]);
const started = parent();
const until = Date.now() + Number(process.argv[1]);
let x = 0;
for (;;) {
  const next = Date.now() + 50;
  while (Date.now() < next) for (let i = 0; i < 1e4; i++) x = (x * 31 + i) % 1000003;
  if (parent() !== started || Date.now() > until) process.exit(0);
}
`;

export interface Load {
  readonly processes: number;
  /** Stops every spinner (SIGKILL) and says what share of a core each one got, on average, while it ran. */
  stop(): { percentEach: number };
}

/** One spinner per core, at nice 0, for at most `limitMs`. */
export function startLoad(limitMs: number): Load {
  const count = os.cpus().length;
  const started = performance.now();
  const spinners: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', SPINNER, String(limitMs)], { stdio: 'ignore' });
    // Nice 0 whatever the benchmark's own niceness was (raising it back needs privilege: then it stays the benchmark's).
    try {
      os.setPriority(child.pid!, 0);
    } catch {
      // left at the benchmark's niceness
    }
    spinners.push(child);
  }
  let stopped: { percentEach: number } | null = null;
  return {
    processes: count,
    stop() {
      if (stopped) return stopped;
      const seconds = (performance.now() - started) / 1000;
      let ticks = 0;
      for (const child of spinners) {
        try {
          ticks += sampleCpu(child.pid!, false).own;
        } catch {
          // already gone
        }
        child.kill('SIGKILL');
      }
      stopped = { percentEach: percentOfCore(ticks / count, ticksPerSecond(), seconds) };
      return stopped;
    },
  };
}
