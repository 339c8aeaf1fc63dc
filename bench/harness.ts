// What the benchmarks stand on: a real `corral serve` in a temp home on a private tmux socket,
// viewers that acknowledge output the way the renderer does, and small statistics.

import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

export const CORRAL = path.resolve('out/cli/corral.mjs');

export interface Daemon {
  url: string;
  token: string;
  home: string;
  socket: string;
  child: ChildProcess;
  bin: string;
  api<T = any>(method: string, route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
  restart(): Promise<number>;
}

export function workdir(): { dir: string; bin: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-bench-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  return { dir, bin, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function script(bin: string, name: string, body: string): string {
  const file = path.join(bin, name);
  fs.writeFileSync(file, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return file;
}

export async function startDaemon(options: { dir: string; bin: string; backend: 'tmux' | 'pty'; catalogue: string; socket?: string; name?: string }): Promise<Daemon> {
  const home = path.join(options.dir, `home-${options.name ?? options.backend}`);
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'clis.toml'), options.catalogue);
  const socket = options.socket ?? `corral-bench-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${options.bin}:${process.env.PATH}`, CORRAL_HOME: home, CORRAL_TMUX_SOCKET: socket };
  delete env.CORRAL_TOKEN;
  delete env.CORRAL_URL;
  let child!: ChildProcess;
  let url = '';
  const launch = async (): Promise<number> => {
    const started = performance.now();
    // CORRAL_BENCH_PROFILE=DIR writes a CPU profile of each daemon there, to see where time goes.
    const profile = process.env.CORRAL_BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.CORRAL_BENCH_PROFILE] : [];
    child = spawn(process.execPath, [...profile, CORRAL, 'serve', '--port', '0', '--backend', options.backend], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    for (;;) {
      const found = /serving .* at (http:\/\/\S+)/.exec(out);
      if (found) {
        url = found[1]!;
        break;
      }
      if (child.exitCode !== null) throw new Error(`corral serve failed: ${out}`);
      await sleep(2);
    }
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) return performance.now() - started;
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
      return url;
    },
    get token() {
      return token();
    },
    home,
    socket,
    get child() {
      return child;
    },
    bin: options.bin,
    async api(method, route, body) {
      const res = await fetch(url + route, {
        method,
        headers: { Authorization: `Bearer ${token()}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
    async restart() {
      await daemon.stop();
      return launch();
    },
  } as Daemon;
  return daemon;
}

export { killTmux } from '../daemon/test/support/tmux';

/** A viewer of a session's stream that acknowledges like the renderer (every 5,000 characters). */
export class Viewer {
  readonly ws: WebSocket;
  chars = 0;
  text = '';
  keep: boolean;
  private unacked = 0;
  private readonly waiters: { test: (v: Viewer) => boolean; resolve: () => void }[] = [];
  onChunk: ((chunk: string) => void) | null = null;

  constructor(daemon: Daemon, id: string, options: { keep?: boolean; ack?: boolean } = {}) {
    this.keep = options.keep ?? true;
    this.ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/api/sessions/${id}/stream?cols=160&rows=48`, ['corral.v1'], {
      headers: { Authorization: `Bearer ${daemon.token}` },
    });
    this.ws.on('message', (data, binary) => {
      if (!binary) return;
      const chunk = (data as Buffer).toString('utf8');
      this.chars += chunk.length;
      if (this.keep) this.text += chunk;
      this.onChunk?.(chunk);
      if (options.ack !== false) {
        this.unacked += chunk.length;
        if (this.unacked >= 5_000) {
          this.ws.send(JSON.stringify({ type: 'ack', chars: this.unacked }));
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

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
