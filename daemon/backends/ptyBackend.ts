// node-pty, for machines without tmux. The daemon owns each process, so agents end with
// the daemon. A headless terminal per session keeps the screen and scrollback, so a
// reattaching viewer gets its screen back and capture reads real lines.

import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import fs from 'node:fs';
import * as pty from 'node-pty';
import type { Attachment, AttachOptions, Backend, ExitListener, LiveProcess, ProcessExit, SpawnSpec } from './backend';
import { signalName } from './signals';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

export const PTY_SCROLLBACK = 10_000;

interface Live {
  proc: pty.IPty;
  screen: InstanceType<typeof Terminal>;
  serializer: InstanceType<typeof SerializeAddon>;
  viewers: Set<AttachOptions>;
  /** Resolves when the headless terminal has parsed everything written to it so far. */
  parsed(): Promise<void>;
  lastActivityAt: number;
  /** Set when the daemon ends it: its exit is not reported as news. */
  killed: ((exit: ProcessExit) => void) | null;
  exited: Promise<ProcessExit>;
}

export class PtyBackend implements Backend {
  readonly kind = 'pty' as const;
  private readonly live = new Map<string, Live>();
  private onExit: ExitListener = () => {};

  constructor(private readonly now: () => number = Date.now) {}

  async open(onExit: ExitListener): Promise<void> {
    this.onExit = onExit;
  }

  async spawn(spec: SpawnSpec): Promise<LiveProcess> {
    const proc = pty.spawn(spec.file, spec.args, {
      name: spec.env.TERM ?? 'xterm-256color',
      cols: spec.cols,
      rows: spec.rows,
      cwd: spec.cwd,
      env: spec.env,
    });
    // Hold the terminal's other end open: when the last process on it exits, Linux would
    // otherwise hang it up and drop output still in flight (the tail of what the agent said).
    const slave = holdSlave(proc);
    const screen = new Terminal({ cols: spec.cols, rows: spec.rows, scrollback: PTY_SCROLLBACK, allowProposedApi: true });
    const serializer = new SerializeAddon();
    screen.loadAddon(serializer);
    let resolveExit!: (exit: ProcessExit) => void;
    // xterm parses writes asynchronously; count them to know when it has caught up.
    let pending = 0;
    let caughtUp: (() => void)[] = [];
    const parsed = () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => caughtUp.push(resolve)));
    const entry: Live = {
      parsed,
      proc,
      screen,
      serializer,
      viewers: new Set(),
      lastActivityAt: this.now(),
      killed: null,
      exited: new Promise((resolve) => (resolveExit = resolve)),
    };
    this.live.set(spec.id, entry);
    proc.onData((data) => {
      entry.lastActivityAt = this.now();
      pending++;
      screen.write(data, () => {
        if (--pending > 0) return;
        const waiting = caughtUp;
        caughtUp = [];
        for (const resolve of waiting) resolve();
      });
      for (const viewer of entry.viewers) viewer.onData(data);
    });
    proc.onExit(({ exitCode, signal }) => {
      if (slave !== null) fs.closeSync(slave);
      // Let the headless terminal take in the last bytes before reading it.
      void parsed().then(() => {
        const exit: ProcessExit = {
          code: signal ? null : exitCode,
          signal: signalName(signal),
          at: this.now(),
          output: plainText(screen, PTY_SCROLLBACK + spec.rows),
          whileAway: false,
          pid: proc.pid,
        };
        this.live.delete(spec.id);
        for (const viewer of entry.viewers) viewer.onClose?.();
        screen.dispose();
        resolveExit(exit);
        if (entry.killed) entry.killed(exit);
        else this.onExit(spec.id, exit);
      });
    });
    return { id: spec.id, pid: proc.pid, lastActivityAt: entry.lastActivityAt };
  }

  async list(): Promise<LiveProcess[]> {
    return [...this.live].map(([id, entry]) => ({ id, pid: entry.proc.pid, lastActivityAt: entry.lastActivityAt }));
  }

  async isAlive(id: string): Promise<boolean> {
    return this.live.has(id);
  }

  async write(id: string, data: string): Promise<void> {
    const entry = this.get(id);
    entry.lastActivityAt = this.now();
    entry.proc.write(data);
  }

  async resize(id: string, cols: number, rows: number): Promise<void> {
    const entry = this.get(id);
    entry.proc.resize(cols, rows);
    entry.screen.resize(cols, rows);
  }

  async capture(id: string, lines: number): Promise<string> {
    const entry = this.get(id);
    await entry.parsed();
    return plainText(entry.screen, lines);
  }

  async kill(id: string): Promise<ProcessExit | null> {
    const entry = this.live.get(id);
    if (!entry) return null;
    const ended = new Promise<ProcessExit>((resolve) => (entry.killed = resolve));
    entry.proc.kill('SIGHUP');
    const timer = setTimeout(() => {
      try {
        entry.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }, 3_000);
    const exit = await ended;
    clearTimeout(timer);
    return exit;
  }

  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    const entry = this.get(id);
    // The screen first (as escape sequences that redraw it), then everything live.
    await entry.parsed();
    options.onData(entry.serializer.serialize({ scrollback: PTY_SCROLLBACK }));
    entry.viewers.add(options);
    let open = true;
    return {
      write: (data) => open && entry.proc.write(data),
      resize: (cols, rows) => {
        if (!open) return;
        entry.proc.resize(cols, rows);
        entry.screen.resize(cols, rows);
      },
      pause: () => open && entry.proc.pause(),
      resume: () => open && entry.proc.resume(),
      close: () => {
        open = false;
        entry.viewers.delete(options);
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.kill(id)));
  }

  private get(id: string): Live {
    const entry = this.live.get(id);
    if (!entry) throw new Error(`session ${id} has no running process`);
    return entry;
  }
}

function holdSlave(proc: pty.IPty): number | null {
  const name = (proc as unknown as { ptsName?: string }).ptsName;
  if (!name) return null;
  try {
    return fs.openSync(name, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch {
    return null;
  }
}

function plainText(screen: InstanceType<typeof Terminal>, lines: number): string {
  const buffer = screen.buffer.active;
  const out: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (!line) continue;
    const text = line.translateToString(true);
    if (line.isWrapped && out.length > 0) out[out.length - 1] += text;
    else out.push(text);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.slice(-lines).join('\n');
}
