// Processes the daemon runs to their end (tmux commands, git), started away from its thread.
// Starting a process is a fork of the daemon and a wait until the child has run its program: on
// the daemon's own thread that held its event loop (every viewer's output, every echo) 8–9 ms a
// process, up to 41 ms, twice a second while agents print (the tmux watchers' looks; bench/README.md,
// "tmux commands started from a thread of their own"). A fork from another thread of the daemon
// still copies the daemon's memory map, and its thread waits meanwhile whenever it touches memory
// the kernel must map for it ("A process of its own to start processes"): under `corral serve` they
// start from a small process of the daemon's own, the starter, which forks itself instead. Inside
// the desktop app (Electron, which does not run as plain Node) they start from a thread. Until the
// starter is up (the first process starts it), or if it fails, they start on the daemon's thread.
//
// A process can also be started ahead and held, its stdin open, until its input is known
// (`holdProcess`): a wait that would include the process's start then does not.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';

export interface ProcessCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Killed (with `killSignal`) after this many ms. */
  timeout: number;
  killSignal?: 'SIGKILL' | 'SIGTERM';
  /** Bytes of output at most (Node's default, 1 MiB, without). */
  maxBuffer?: number;
  cwd?: string;
  /** Written to its stdin, which is then closed. */
  input?: string;
}

export interface ProcessOutcome {
  /** Why it failed: it could not start (its errno code), was killed at its timeout, or exited non-zero. */
  failed: { code?: string | number; killed?: boolean; message: string } | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end: its output as UTF-8 text, and how it failed, if it did. */
export function startProcess(command: ProcessCommand): Promise<ProcessOutcome> {
  return new Promise((resolve) => starter.run(command, resolve));
}

function startHere({ file, args, input, ...options }: ProcessCommand, done: (outcome: ProcessOutcome) => void): void {
  const child = execFile(file, args, { ...options, encoding: 'utf8' }, (err, stdout, stderr) => {
    const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
    done({ failed: e && { code: e.code, killed: e.killed, message: e.message }, stdout, stderr });
  });
  // A program that ends before it reads all of it fails on its own terms, not with EPIPE here.
  if (input !== undefined) child.stdin?.on('error', () => {}).end(input);
}

// The starter does what startHere does (its source is a string: the daemon is one bundle, with no
// file of its own for it). `port` is how it hears and answers: its IPC channel as a process, its
// parent port as a thread.
// A held process has no time limit until it is fed; its limit runs from then. Its outcome says
// whether it was fed before it ended.
const STARTER_SOURCE = `
const { execFile } = require('node:child_process');
const held = new Map();
port.on('message', ({ id, command, hold, input, cancel }) => {
  if (!command) {
    const waiting = held.get(id);
    if (!waiting) return;
    held.delete(id);
    if (cancel) return void waiting.child.kill('SIGKILL');
    // Ended, its end not yet told (its output's pipes close after it): its outcome is not this input's.
    if (waiting.child.exitCode !== null || waiting.child.signalCode !== null) return;
    waiting.fed = true;
    waiting.timer = setTimeout(() => waiting.child.kill(waiting.signal), waiting.timeout);
    return void waiting.child.stdin.end(input);
  }
  const { file, args, input: given, timeout, ...options } = command;
  const state = { fed: !hold, timer: undefined };
  const child = execFile(file, args, { ...options, timeout: hold ? 0 : timeout, encoding: 'utf8' }, (e, stdout, stderr) => {
    held.delete(id);
    clearTimeout(state.timer);
    const failed = e && { code: e.code, killed: e.killed, message: e.message };
    port.postMessage({ id, fed: state.fed, outcome: { failed, stdout, stderr } });
  });
  child.stdin.on('error', () => {});
  if (hold) held.set(id, Object.assign(state, { child, timeout, signal: options.killSignal || 'SIGTERM' }));
  else if (given !== undefined) child.stdin.end(given);
});
port.postMessage('ready');
`;

// As a process: it goes with the daemon (its channel closes when the daemon ends, however it
// ends). A Ctrl-C or a hangup of the daemon's terminal reaches the whole process group: what
// comes of that is the daemon's to decide, not the starter's.
// An answer it can no longer send (the daemon gone meanwhile) is dropped, not a stack trace in the log.
const PROCESS_PORT = `
const port = { on: (event, listener) => process.on(event, listener), postMessage: (message) => process.connected && process.send(message, () => {}) };
process.on('disconnect', () => process.exit(0));
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
`;
const THREAD_PORT = "const port = require('node:worker_threads').parentPort;";

/** Where the starter runs: whether it keeps the daemon alive (only while a process it started runs), and how it is told. */
interface StarterLink {
  kind: 'process' | 'thread';
  post(message: object): void;
  keepAlive(on: boolean): void;
}

type Answer = 'ready' | { id: number; fed: boolean; outcome: ProcessOutcome };

/** The starter as a process of its own; null if Node cannot be started here. */
function starterProcess(heard: (message: Answer) => void, failed: () => void): StarterLink | null {
  // Under Electron process.execPath is the app itself, which (packaged) never runs as Node.
  if (process.versions.electron) return null;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['-e', PROCESS_PORT + STARTER_SOURCE], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      env: { PATH: process.env.PATH ?? '' },
    });
  } catch {
    return null;
  }
  child.on('message', heard);
  child.on('error', failed);
  // Its answers sent before it ended are read first: its channel closes after them.
  child.on('exit', () => (child.connected ? child.once('disconnect', failed) : failed()));
  // Listening made its channel keep the daemon alive: only while a process it started runs.
  child.unref();
  child.channel?.unref();
  return {
    kind: 'process',
    post: (message) => child.send(message),
    keepAlive: (on) => (on ? child.channel?.ref() : child.channel?.unref()),
  };
}

/** The starter as a thread of the daemon's; null if it cannot start. */
function starterThread(heard: (message: Answer) => void, failed: () => void): StarterLink | null {
  let worker: Worker;
  try {
    worker = new Worker(THREAD_PORT + STARTER_SOURCE, { eval: true });
  } catch {
    return null;
  }
  worker.unref();
  worker.on('message', heard);
  worker.on('error', failed);
  worker.on('exit', failed);
  return {
    kind: 'thread',
    post: (message) => worker.postMessage(message),
    keepAlive: (on) => (on ? worker.ref() : worker.unref()),
  };
}

/** A process started ahead, waiting with its stdin open for its input. */
export interface HeldProcess {
  /**
   * Writes its input, closes its stdin and waits for its end (its time limit runs from now).
   * `early`: it had ended before (the outcome is then not of this input).
   */
  feed(input: string): Promise<{ outcome: ProcessOutcome; early: boolean }>;
  /** Kills it if it still waits. */
  cancel(): void;
}

/** Starts a program to be fed later (`HeldProcess`); null until the starter is up, or if it failed. */
export function holdProcess(command: Omit<ProcessCommand, 'input'>): HeldProcess | null {
  return starter.hold(command);
}

/** What waits for a process's outcome, and whether it was fed before it ended. */
type Waiting = (outcome: ProcessOutcome, fed: boolean) => void;

/** A held process not yet fed: `ended` once it ended unfed. */
interface Unfed {
  ended: ProcessOutcome | null;
}

export class Starter {
  /** `kind`: where processes start once it is up: a process of its own, or a thread (inside Electron). */
  constructor(private readonly kind: 'process' | 'thread' = process.versions.electron ? 'thread' : 'process') {}

  private link: StarterLink | null = null;
  ready = false;
  /** Processes started by the starter so far. */
  startedThere = 0;
  private broken = false;
  private next = 0;
  private readonly pending = new Map<number, Waiting>();
  /** Held processes not yet fed: they never keep the daemon alive. */
  private readonly unfed = new Map<number, Unfed>();

  run(command: ProcessCommand, done: (outcome: ProcessOutcome) => void): void {
    if (!this.ready || this.broken) {
      this.start();
      return startHere(command, done);
    }
    const id = this.next++;
    this.startedThere++;
    this.send(id, done, { id, command });
  }

  hold(command: Omit<ProcessCommand, 'input'>): HeldProcess | null {
    if (!this.ready || this.broken) {
      this.start();
      return null;
    }
    const id = this.next++;
    this.startedThere++;
    const entry: Unfed = { ended: null };
    this.unfed.set(id, entry);
    this.link!.post({ id, command, hold: true });
    return {
      feed: (input) =>
        new Promise((resolve) => {
          if (!this.unfed.delete(id)) return resolve({ outcome: entry.ended ?? gone, early: true });
          this.send(id, (outcome, fed) => resolve({ outcome, early: !fed }), { id, input });
        }),
      cancel: () => {
        if (this.unfed.delete(id)) this.link?.post({ id, cancel: true });
      },
    };
  }

  private send(id: number, waiting: Waiting, message: object): void {
    this.pending.set(id, waiting);
    this.link!.keepAlive(true);
    this.link!.post(message);
  }

  private start(): void {
    if (this.link || this.broken) return;
    const heard = (message: Answer) => {
      if (message === 'ready') return void (this.ready = true);
      const unfed = this.unfed.get(message.id);
      if (unfed) {
        this.unfed.delete(message.id);
        unfed.ended = message.outcome;
        return;
      }
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.link?.keepAlive(false);
      waiting?.(message.outcome, message.fed);
    };
    // A starter that fails: what it had not answered fails (it may have run: a tmux command
    // that types, run again here, would type twice), a held process that was not fed is gone
    // with it, and all that comes after starts here.
    const failed = () => {
      if (this.broken) return;
      this.broken = true;
      this.link?.keepAlive(false);
      console.error(`corral: the ${this.link?.kind ?? 'thread'} that starts the daemon's processes ended: they start from the daemon's own thread from now on`);
      const left = [...this.pending.values()];
      this.pending.clear();
      for (const entry of this.unfed.values()) entry.ended = gone;
      this.unfed.clear();
      for (const done of left) done(unanswered, true);
    };
    this.link = (this.kind === 'process' ? starterProcess(heard, failed) : null) ?? starterThread(heard, failed);
    if (!this.link) this.broken = true;
  }
}

/** The outcome of a held process whose starter ended before it was fed. */
const gone: ProcessOutcome = { failed: { message: 'its starter ended' }, stdout: '', stderr: '' };
/** The outcome of a process whose starter ended before it answered (whether it ran is not known). */
const unanswered: ProcessOutcome = { failed: { message: 'its starter ended before it answered' }, stdout: '', stderr: '' };

export const starter = new Starter();
