// The benchmark's baselines (node-pty and tmux straight, with nothing of Corral's in between)
// and what its figures measure with: echo round trips, a daemon's CPU, quiet output.

import { execFileSync, spawn } from 'node:child_process';
import WebSocket from 'ws';
import * as pty from 'node-pty';
import { sessionName } from '../daemon/backends/tmuxCommands';
import { killTmux } from '../daemon/test/support/tmux';
import { sleep } from '../daemon/test/support/wait';
import { percentOfCore, sampleCpu, ticksBetween, ticksPerSecond, type CpuSample } from './cpu';
import { tmuxServerPid, Viewer, type Daemon } from './harness';

/** ms from spawn until `done` sees the output, in node-pty straight. */
export function rawPty(command: string, done: (seen: string) => boolean, untilFirst = false): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const proc = pty.spawn('/bin/bash', ['-c', command], { cols: 160, rows: 48, env: process.env as Record<string, string> });
    let tail = '';
    proc.onData((data) => {
      tail = (tail + data).slice(-64);
      if (done(untilFirst ? data : tail)) {
        resolve(performance.now() - started);
        proc.kill('SIGKILL');
      }
    });
  });
}

/** ms from telling a flood agent on a tmux client's screen to go until the client prints its end marker. */
async function floodThrough(client: pty.IPty): Promise<number> {
  await sleep(300);
  const started = performance.now();
  return new Promise<number>((resolve) => {
    let tail = '';
    client.onData((data) => {
      tail = (tail + data).slice(-64);
      if (tail.includes('__END__')) resolve(performance.now() - started);
    });
    client.write('go\r');
  });
}

/** The same flood through a plain `tmux attach` in node-pty. */
export async function rawTmuxAttach(bin: string, file: string, sockets: Set<string>): Promise<number> {
  const socket = `corral-bench-raw-${process.pid}`;
  sockets.add(socket);
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args]);
  try {
    tmux('new-session', '-d', '-s', 'raw', '-x', '160', '-y', '48', '--', '/bin/bash', '-c', `read -r go; cat '${file}'; exec cat`);
    tmux('set-option', '-g', 'status', 'off');
    const client = pty.spawn('tmux', ['-u', '-L', socket, '-f', '/dev/null', 'attach-session', '-t', 'raw'], { cols: 160, rows: 48, env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' } });
    try {
      return await floodThrough(client);
    } finally {
      client.kill('SIGHUP');
    }
  } finally {
    killTmux(socket);
    sockets.delete(socket);
    void bin;
  }
}

export async function rawEchoLatency(keys: number): Promise<number[]> {
  const proc = pty.spawn('/bin/bash', ['-c', 'stty -icanon; exec cat > /dev/null'], { cols: 80, rows: 24, env: process.env as Record<string, string> });
  await sleep(300);
  let onEcho: () => void = () => {};
  proc.onData(() => onEcho());
  const times = await roundTrips(keys, () => proc.write('a'), (resolve) => (onEcho = resolve));
  proc.kill('SIGKILL');
  return times;
}

/** ms from each keystroke sent until its echo arrives, one key at a time. */
export async function roundTrips(keys: number, send: () => void, nextEcho: (resolve: () => void) => void): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < keys; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      nextEcho(resolve);
      send();
    });
    times.push(performance.now() - started);
  }
  return times;
}

/** A session read and typed into one way (Corral's viewer, the relay's socket, a plain client). */
interface EchoReader {
  send(): void;
  nextEcho(resolve: () => void): void;
  close(): void;
}

/**
 * Figure 3's round trips through `connect`'s readers: an echoing session's (names end in
 * `suffix`), beside a flooding one's read at full speed the same way when `withFlood`. Both
 * sessions go after.
 */
async function echoThrough(daemon: Daemon, cwd: string, keys: number, withFlood: boolean, suffix: string, connect: (id: string) => Promise<EchoReader>): Promise<number[]> {
  const made: string[] = [];
  const readers: EchoReader[] = [];
  try {
    if (withFlood) {
      made.push((await daemon.api('POST', '/api/sessions', { cli: 'yes', cwd, name: `noisy${suffix}` })).id);
      readers.push(await connect(made[0]!));
    }
    const { id } = await daemon.api('POST', '/api/sessions', { cli: 'echoer', cwd, name: `echo${suffix}` });
    made.push(id);
    const reader = await connect(id);
    readers.push(reader);
    await sleep(500);
    return await roundTrips(keys, () => reader.send(), (resolve) => reader.nextEcho(resolve));
  } finally {
    for (const reader of readers) reader.close();
    for (const id of made) await daemon.api('DELETE', `/api/sessions/${id}?force=1`);
  }
}

export async function corralEchoLatency(daemon: Daemon, cwd: string, keys: number, withFlood: boolean): Promise<number[]> {
  return echoThrough(daemon, cwd, keys, withFlood, '', async (id) => {
    const viewer = new Viewer(daemon, id, { keep: false });
    await viewer.opened();
    return { send: () => viewer.send('a'), nextEcho: (resolve) => (viewer.onChunk = resolve), close: () => viewer.close() };
  });
}

/**
 * A process that only relays: each WebSocket's messages typed into a tmux client of its own (a
 * `tmux attach` in node-pty, the session named in the URL), the client's output sent back as it
 * was read. No flow control, no gathering, no engine: what any design with a process between
 * the viewer and tmux pays for the two hops it adds. It prints its port, and goes with its parent.
 */
const RELAY = `
const { WebSocketServer } = require('ws');
const pty = require('node-pty');
const [socket] = process.argv.slice(1);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('listening', () => console.log(JSON.stringify({ port: server.address().port })));
server.on('connection', (ws, req) => {
  const target = new URL(req.url, 'http://relay').searchParams.get('target');
  const client = pty.spawn('tmux', ['-u', '-L', socket, '-f', '/dev/null', 'attach-session', '-t', target], {
    cols: 160, rows: 48, env: { PATH: process.env.PATH, TERM: 'xterm-256color' }, encoding: null,
  });
  client.onData((bytes) => ws.send(bytes));
  ws.on('message', (data) => client.write(data.toString()));
  ws.on('close', () => client.kill('SIGHUP'));
});
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
`;

/**
 * corralEchoLatency's keys (and its flood, read at full speed) through RELAY instead of the
 * daemon, on the daemon's own tmux server: the floor of an echo through a process in between. Run from the
 * repository (its `require`s resolve from there).
 */
export async function relayEchoLatency(daemon: Daemon, cwd: string, keys: number, withFlood: boolean): Promise<number[]> {
  const relay = spawn(process.execPath, ['-e', RELAY, daemon.socket], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      relay.once('error', reject);
      relay.once('exit', (code) => reject(new Error(`the relay ended (${code}) before it listened`)));
      relay.stdout.once('data', (line: Buffer) => resolve(JSON.parse(line.toString()).port));
    });
    return await echoThrough(daemon, cwd, keys, withFlood, '-relay', async (id) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/?target=${encodeURIComponent(`=${sessionName(id)}`)}`);
      let onEcho: () => void = () => {};
      ws.on('message', () => onEcho());
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      return { send: () => ws.send('a'), nextEcho: (resolve) => (onEcho = resolve), close: () => ws.close() };
    });
  } finally {
    relay.kill('SIGKILL');
  }
}

/** A plain `tmux attach-session` client in node-pty on a daemon's own tmux server, sized as a Viewer. */
function bareClient(daemon: Daemon, id: string): pty.IPty {
  return pty.spawn('tmux', ['-u', '-L', daemon.socket, '-f', '/dev/null', 'attach-session', '-t', `=${sessionName(id)}`], {
    cols: 160,
    rows: 48,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
  });
}

/**
 * Figure 1's flood through a plain `tmux attach` client of a session the daemon made, on its own
 * tmux server (its options, its pane's waiter, its engine's looks): what the server allows a
 * client of Corral's sessions, beside the fresh server of rawTmuxAttach. ms to the end marker.
 */
export async function bareTmuxFlood(daemon: Daemon, cwd: string): Promise<number> {
  const { id } = await daemon.api('POST', '/api/sessions', { cli: 'flood', cwd, name: 'flood-bare' });
  const client = bareClient(daemon, id);
  try {
    return await floodThrough(client);
  } finally {
    client.kill('SIGHUP');
    await daemon.api('DELETE', `/api/sessions/${id}?force=1`);
  }
}

/**
 * corralEchoLatency's keys through plain `tmux attach` clients on the daemon's own tmux server,
 * with no viewer of Corral's: the echoing session's client in this process, and the flood's read
 * here at full speed too (as the daemon reads both). What tmux alone allows on this machine now.
 */
export async function bareTmuxEchoLatency(daemon: Daemon, cwd: string, keys: number, withFlood: boolean): Promise<number[]> {
  return echoThrough(daemon, cwd, keys, withFlood, '-bare', async (id) => {
    const client = bareClient(daemon, id);
    let onEcho: () => void = () => {};
    client.onData(() => onEcho());
    return { send: () => client.write('a'), nextEcho: (resolve) => (onEcho = resolve), close: () => client.kill('SIGHUP') };
  });
}

/**
 * Figure 8's lags through plain `tmux attach` clients, one per session, read in this process for
 * `ms` after a second's start: each read's newest time stamp (`lags`) and every one (`lineLags`).
 */
export async function bareTmuxLags(daemon: Daemon, ids: string[], ms: number): Promise<{ lags: number[]; lineLags: number[] }> {
  const lags: number[] = [];
  const lineLags: number[] = [];
  const clients = ids.map((id) => {
    const client = bareClient(daemon, id);
    client.onData((chunk) => {
      const now = Date.now();
      const stamps = [...chunk.matchAll(/(\d{13}\.\d{3}) x/g)].map((m) => now - Number(m[1]));
      if (stamps.length) lags.push(stamps.at(-1)!);
      lineLags.push(...stamps);
    });
    return client;
  });
  try {
    await sleep(1_000);
    lags.length = 0;
    lineLags.length = 0;
    await sleep(ms);
    return { lags: [...lags], lineLags: [...lineLags] };
  } finally {
    for (const client of clients) client.kill('SIGHUP');
  }
}

/**
 * Starts counting a tmux daemon's CPU: the daemon with its child processes (its tmux clients
 * and commands) and the tmux server without its own (the agents). `read` gives each as % of
 * one core since the start.
 */
export function cpuMeter(daemon: Daemon): { read(): { daemon: number; daemonAlone: number; tmux: number; seconds: number } } {
  const daemonPid = daemon.child.pid!;
  const tmuxPid = tmuxServerPid(daemon.socket);
  const sample = (): [CpuSample, CpuSample] => [sampleCpu(daemonPid, true), sampleCpu(tmuxPid, false)];
  const started = performance.now();
  const before = sample();
  return {
    read() {
      const after = sample();
      const seconds = (performance.now() - started) / 1000;
      const share = (ticks: number) => percentOfCore(ticks, ticksPerSecond(), seconds);
      return { daemon: share(ticksBetween(before[0], after[0])), daemonAlone: share(after[0].own - before[0].own), tmux: share(ticksBetween(before[1], after[1])), seconds };
    },
  };
}

/** Waits until nothing came for `quietMs`, or `maxMs` passed; false when it never went quiet. */
export async function waitQuiet(last: () => number, quietMs: number, maxMs = 30_000): Promise<boolean> {
  const deadline = performance.now() + maxMs;
  while (performance.now() - last() < quietMs) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}
