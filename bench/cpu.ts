// CPU time of the processes the benchmark watches, read from /proc/<pid>/stat: the parsing and
// the arithmetic are pure (the test checks them on made-up lines); `sampleCpu` reads /proc.

import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

/** What one /proc/<pid>/stat line says about CPU, in clock ticks. */
export interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime: the process itself. */
  own: number;
  /** cutime + cstime: its children that have exited and been waited for. */
  reaped: number;
}

/** One /proc/<pid>/stat line. The name (field 2) may hold spaces and parentheses: fields are counted after its last ')'. */
export function parseStat(line: string): Stat {
  const close = line.lastIndexOf(')');
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After ") ": state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const rest = line.slice(close + 2).split(' ');
  const field = (n: number) => Number(rest[n - 3]);
  const stat = { pid, ppid: field(4), own: field(14) + field(15), reaped: field(16) + field(17) };
  if (close < 0 || Object.values(stat).some((n) => !Number.isFinite(n))) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  return stat;
}

/**
 * A process's CPU at one moment, in ticks: its own, and (when its family is counted) its
 * children's that have exited and every live descendant's own and its reaped children's (the
 * daemon's starter of processes is alive throughout, and the tmux commands it starts are its
 * children).
 */
export interface CpuSample {
  own: number;
  reaped: number;
  /** Live descendants' own ticks and their reaped children's, by pid. */
  descendants: Map<number, number>;
}

/**
 * Ticks spent between two samples of one process. A descendant alive in both counts its
 * growth; one born since counts all its ticks; one that has exited since is in the parent's
 * reaped ticks with all its life, so what it had at the first sample is taken off again.
 */
export function ticksBetween(before: CpuSample, after: CpuSample): number {
  let ticks = after.own - before.own + (after.reaped - before.reaped);
  for (const [pid, now] of after.descendants) ticks += now - (before.descendants.get(pid) ?? 0);
  for (const [pid, then] of before.descendants) if (!after.descendants.has(pid)) ticks -= then;
  return ticks;
}

/** Ticks as a share of one core over `seconds`, in %. */
export const percentOfCore = (ticks: number, ticksPerSecond: number, seconds: number) => (ticks / ticksPerSecond / seconds) * 100;

/** Every process's stat line that could be read (processes come and go while /proc is read). */
function allStats(): Stat[] {
  const stats: Stat[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.push(parseStat(fs.readFileSync(`/proc/${name}/stat`, 'utf8')));
    } catch {
      // gone since the listing
    }
  }
  return stats;
}

/**
 * A process's CPU now. `family`: also its live descendants and the children it has reaped
 * (the daemon's tmux clients and commands are its work); without, the process alone (the tmux
 * server's children are the agents, whose work is theirs).
 */
export function sampleCpu(pid: number, family: boolean): CpuSample {
  if (!family) {
    const own = parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return { own: own.own, reaped: 0, descendants: new Map() };
  }
  const stats = allStats();
  const self = stats.find((s) => s.pid === pid);
  if (!self) throw new Error(`no process ${pid}`);
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const descendants = new Map<number, number>();
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      descendants.set(child.pid, child.own + child.reaped);
      walk(child.pid);
    }
  };
  walk(pid);
  return { own: self.own, reaped: self.reaped, descendants };
}

let ticks: number | null = null;
/** The kernel's clock ticks per second (CLK_TCK), for /proc's CPU times. */
export function ticksPerSecond(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticks;
}
