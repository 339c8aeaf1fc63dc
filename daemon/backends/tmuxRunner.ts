// Every call to tmux goes through here: Corral's own socket, no user config, UTF-8, a timeout,
// and an error that says which command failed and why.

import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';

export class TmuxError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    /** What the commands before the one that failed printed. */
    readonly stdout = '',
  ) {
    super(message);
    this.name = 'TmuxError';
  }
}

export interface RunOptions {
  /** Defaults to the runner's timeout. */
  timeoutMs?: number;
  /** Environment of the tmux client process (and of the server, if this call starts it). */
  env?: Record<string, string>;
}

export class TmuxRunner {
  constructor(
    readonly socket: string,
    /** The environment of every tmux client it runs (its PATH says which tmux). */
    readonly baseEnv: Record<string, string>,
    private readonly timeoutMs = 5_000,
    readonly binary = 'tmux',
  ) {}

  run(args: string[], options: RunOptions = {}): Promise<string> {
    // -u: the client is UTF-8 whatever the locale. Outside one (a daemon started over ssh or by
    // `env -i`), tmux prints control characters such as the looks' field separator as "_".
    const argv = ['-u', '-L', this.socket, '-f', '/dev/null', ...args];
    const timeout = options.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      starter.run({ file: this.binary, args: argv, env: options.env ?? this.baseEnv, timeout }, ({ failed, stdout, stderr }) => {
        if (!failed) return resolve(stdout);
        const what = `tmux ${args[0]}`;
        if (failed.code === 'ENOENT') return reject(new TmuxError(`${this.binary} is not installed or not on PATH`, ''));
        if (failed.killed) return reject(new TmuxError(`${what} did not answer within ${timeout} ms (socket ${this.socket})`, stderr));
        reject(new TmuxError(`${what} failed: ${stderr.trim() || failed.message}`, stderr, stdout));
      });
    });
  }

  /** True when the failure only says there is no server (or no such session) yet. */
  static isNoServer(err: unknown): boolean {
    // "no current target": a server whose last session just went, on its way out.
    return err instanceof TmuxError && /no server running|error connecting to|can't find session|no sessions|no current target|server exited/i.test(err.stderr);
  }
}

/** Quotes a value for a tmux command file: one double-quoted word, nothing expanded. */
export function tmuxQuote(value: string): string {
  const escaped = value
    .replace(/[\\"$]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `"${escaped}"`;
}

/** Escapes `#` for options tmux runs through its format expander (e.g. a start directory). */
export function formatEscape(value: string): string {
  return value.replace(/#/g, '##');
}

interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
  timeout: number;
}

interface Outcome {
  /** Why it failed: it could not start (its errno code), was killed at its timeout, or exited non-zero. */
  failed: { code?: string | number; killed?: boolean; message: string } | null;
  stdout: string;
  stderr: string;
}

const EXEC_OPTIONS = { killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' } as const;

function runHere(command: Command, done: (outcome: Outcome) => void): void {
  const { file, args, env, timeout } = command;
  execFile(file, args, { ...EXEC_OPTIONS, env, timeout }, (err, stdout, stderr) => {
    const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
    done({ failed: e && { code: e.code, killed: e.killed, message: e.message }, stdout, stderr });
  });
}

// The thread that starts tmux commands does what runHere does (its source is a string: the daemon
// is one bundle, with no file of its own for a worker).
const STARTER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
parentPort.on('message', ({ id, command: { file, args, env, timeout } }) => {
  execFile(file, args, { ...${JSON.stringify(EXEC_OPTIONS)}, env, timeout }, (e, stdout, stderr) => {
    const failed = e && { code: e.code, killed: e.killed, message: e.message };
    parentPort.postMessage({ id, outcome: { failed, stdout, stderr } });
  });
});
parentPort.postMessage('ready');
`;

/**
 * Starts tmux commands from a thread of their own. Starting a process is a fork of the daemon and
 * a wait until the child has run tmux: on the daemon's own thread that held its event loop (every
 * viewer's output, every echo) 8–9 ms a command, up to 40 ms, twice a second while agents print
 * (the watchers' looks; bench/README.md). Until the thread is up, or if it fails, they start here.
 */
class Starter {
  private worker: Worker | null = null;
  ready = false;
  /** Commands started from the thread so far. */
  startedThere = 0;
  private broken = false;
  private next = 0;
  private readonly pending = new Map<number, { command: Command; done: (outcome: Outcome) => void }>();

  run(command: Command, done: (outcome: Outcome) => void): void {
    if (!this.ready || this.broken) {
      this.start();
      return runHere(command, done);
    }
    const id = this.next++;
    this.startedThere++;
    this.pending.set(id, { command, done });
    this.worker!.ref();
    this.worker!.postMessage({ id, command });
  }

  private start(): void {
    if (this.worker || this.broken) return;
    let worker: Worker;
    try {
      worker = new Worker(STARTER_SOURCE, { eval: true });
    } catch {
      this.broken = true;
      return;
    }
    this.worker = worker;
    worker.unref();
    worker.on('message', (message: 'ready' | { id: number; outcome: Outcome }) => {
      if (message === 'ready') return void (this.ready = true);
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      waiting?.done(message.outcome);
    });
    // A thread that fails: what it had not answered starts here, and so does all that comes after.
    const fail = () => {
      this.broken = true;
      const left = [...this.pending.values()];
      this.pending.clear();
      for (const { command, done } of left) runHere(command, done);
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }
}

export const starter = new Starter();
