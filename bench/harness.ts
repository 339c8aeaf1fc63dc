// What the benchmarks stand on: a real `corral serve` in a temp home on a private tmux socket,
// viewers that acknowledge output the way the renderer does (the statistics are in report.ts).

import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { daemonEnv, request, startServe, type Serving } from '../daemon/test/support/serve';
import { sampleCpu, ticksBetween, ticksPerSecond } from './cpu';
import { sleep } from '../daemon/test/support/wait';
import type { World } from '../daemon/test/support/world';

export interface Daemon {
  url: string;
  token: string;
  home: string;
  socket: string;
  child: Serving['child'];
  api<T = any>(method: string, route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
  /** Stops it and starts it again; ms from the start until /healthz answers. */
  restart(): Promise<number>;
}

/** A `corral serve` with a home of its own (home-<name>) in the world, its own tmux socket and the given catalogue. */
export async function startDaemon(options: { world: World; backend: 'tmux' | 'pty'; catalogue: string; name?: string }): Promise<Daemon> {
  const home = path.join(options.world.root, `home-${options.name ?? options.backend}`);
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'clis.toml'), options.catalogue);
  const socket = `corral-bench-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  const env = daemonEnv({ env: options.world.env, home, socket });
  let serving!: Serving;
  const launch = async (): Promise<number> => {
    const started = performance.now();
    // CORRAL_BENCH_PROFILE=DIR writes a CPU profile of each daemon there, to see where time goes.
    const nodeArgs = process.env.CORRAL_BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.CORRAL_BENCH_PROFILE] : [];
    serving = await startServe(env, ['--backend', options.backend], { nodeArgs, timeoutMs: 120_000 });
    for (;;) {
      try {
        if ((await fetch(`${serving.url}/healthz`)).ok) return performance.now() - started;
      } catch {
        // not yet
      }
      await sleep(2);
    }
  };
  await launch();
  const token = () => JSON.parse(fs.readFileSync(path.join(home, 'endpoint.json'), 'utf8')).token as string;
  const daemon: Daemon = {
    get url() {
      return serving.url;
    },
    get token() {
      return token();
    },
    home,
    socket,
    get child() {
      return serving.child;
    },
    async api(method, route, body) {
      const res = await request(serving.url, method, route, { token: token(), body });
      if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async stop() {
      await serving.stop();
    },
    async restart() {
      await daemon.stop();
      return launch();
    },
  } as Daemon;
  return daemon;
}

/** A viewer of a session's stream that acknowledges like the renderer (every 5,000 bytes). */
export class Viewer {
  readonly ws: WebSocket;
  bytes = 0;
  /** Binary frames received: what a viewer pays for per frame (figure 8's notes). */
  frames = 0;
  text = '';
  keep: boolean;
  private unacked = 0;
  private readonly waiters: { test: (v: Viewer) => boolean; resolve: () => void }[] = [];
  onChunk: ((chunk: string) => void) | null = null;

  /** `history`: the lines of scrollback asked for before the screen (all of it without). */
  constructor(daemon: Daemon, id: string, options: { keep?: boolean; ack?: boolean; history?: number } = {}) {
    this.keep = options.keep ?? true;
    const history = options.history === undefined ? '' : `&history=${options.history}`;
    this.ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/api/sessions/${id}/stream?cols=160&rows=48${history}`, ['corral.v1'], {
      headers: { Authorization: `Bearer ${daemon.token}` },
    });
    this.ws.on('message', (data, binary) => {
      if (!binary) return;
      this.bytes += (data as Buffer).length;
      this.frames++;
      // Decoded only when read, as the renderer leaves decoding to xterm.js.
      if (this.keep || this.onChunk) {
        const chunk = (data as Buffer).toString('utf8');
        if (this.keep) this.text += chunk;
        this.onChunk?.(chunk);
      }
      if (options.ack !== false) {
        this.unacked += (data as Buffer).length;
        if (this.unacked >= 5_000) {
          this.ws.send(JSON.stringify({ type: 'ack', bytes: this.unacked }));
          this.unacked = 0;
        }
      }
      for (const waiter of [...this.waiters]) {
        if (waiter.test(this)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState === WebSocket.OPEN) return resolve();
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  until(test: (v: Viewer) => boolean, timeoutMs = 120_000): Promise<void> {
    if (test(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('viewer timed out')), timeoutMs);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  send(data: string): void {
    this.ws.send(JSON.stringify({ type: 'input', data }));
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * Figure 1 on one daemon: ms from telling a new `flood` session to go until a viewer has the
 * file's end marker, and what was checked. The pty backend must deliver every byte in order;
 * tmux re-renders the stream, so there the end marker is the check.
 */
export async function floodToViewer(daemon: Daemon, backend: 'pty' | 'tmux', cwd: string, file: string): Promise<{ ms: number; cpuMs: number; notes: string }> {
  const { id } = await daemon.api('POST', '/api/sessions', { cli: 'flood', cwd, name: 'flood' });
  const viewer = new Viewer(daemon, id, { keep: backend === 'pty' });
  await viewer.opened();
  await sleep(200);
  // The daemon's CPU over the flood: its own, and its tmux clients' (not the agent's, a child of
  // the pty backend's daemon).
  const cpuBefore = sampleCpu(daemon.child.pid!, backend === 'tmux');
  const started = performance.now();
  viewer.send('go\r');
  let tail = '';
  viewer.onChunk = (chunk) => (tail = (tail + chunk).slice(-64));
  await viewer.until(() => tail.includes('__END__'));
  const ms = performance.now() - started;
  const cpuMs = (ticksBetween(cpuBefore, sampleCpu(daemon.child.pid!, backend === 'tmux')) / ticksPerSecond()) * 1000;
  let notes = '';
  if (backend === 'pty') {
    // Every byte, in order: the terminal only turned \n into \r\n.
    const got = viewer.text.replace(/\r\n/g, '\n');
    const want = fs.readFileSync(file, 'utf8');
    const at = got.indexOf(want.slice(0, 40));
    notes = at >= 0 && got.slice(at, at + want.length) === want ? 'every byte arrived in order' : 'BYTES DIFFER';
  } else {
    notes = 'tmux re-renders the stream: checked by its end marker, not byte for byte';
  }
  viewer.close();
  return { ms, cpuMs, notes };
}

/** What a command printed; a failure is the benchmark's. */
export function commandOutput(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

/** The pid of the tmux server on a private socket (it must be running). */
export function tmuxServerPid(socket: string): number {
  if (!socket || socket === 'default') throw new Error(`tmuxServerPid: refusing to ask the tmux socket ${JSON.stringify(socket)}`);
  return Number(execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim());
}

export function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Lines with a sequence number and ANSI colours, about `bytes` in all, ending in a marker. */
export function floodFile(dir: string, bytes: number): { file: string; lines: number; bytes: number } {
  const file = path.join(dir, `flood-${bytes}.txt`);
  const parts: string[] = [];
  let size = 0;
  let n = 0;
  while (size < bytes) {
    const line = `${String(n).padStart(8, '0')} \u001b[3${n % 8}mcolour ${n % 8}\u001b[0m the quick brown fox jumps over the lazy dog ${'='.repeat(n % 40)}\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
    n++;
  }
  parts.push('__END__\n');
  fs.writeFileSync(file, parts.join(''));
  return { file, lines: n, bytes: size };
}
