// Processes the daemon runs to their end (tmux commands, git), started from a thread of their own.
// Starting a process is a fork of the daemon and a wait until the child has run its program: on
// the daemon's own thread that held its event loop (every viewer's output, every echo) 8–9 ms a
// process, up to 41 ms, twice a second while agents print (the tmux watchers' looks; bench/README.md,
// "tmux commands started from a thread of their own"). Until the thread is up (the first process
// starts it), or if it fails, they start on the daemon's thread.
//
// A process can also be started ahead and held, its stdin open, until its input is known
// (`holdProcess`): a wait that would include the process's start then does not.

import { execFile } from 'node:child_process';
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

// The thread does what startHere does (its source is a string: the daemon is one bundle, with no
// file of its own for a worker).
// A held process has no time limit until it is fed; its limit runs from then. Its outcome says
// whether it was fed before it ended.
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
const held = new Map();
parentPort.on('message', ({ id, command, hold, input, cancel }) => {
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
    parentPort.postMessage({ id, fed: state.fed, outcome: { failed, stdout, stderr } });
  });
  child.stdin.on('error', () => {});
  if (hold) held.set(id, Object.assign(state, { child, timeout, signal: options.killSignal || 'SIGTERM' }));
  else if (given !== undefined) child.stdin.end(given);
});
parentPort.postMessage('ready');
`;

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

/** Starts a program to be fed later (`HeldProcess`); null until the thread is up, or if it failed. */
export function holdProcess(command: Omit<ProcessCommand, 'input'>): HeldProcess | null {
  return starter.hold(command);
}

interface Waiting {
  command: ProcessCommand;
  done: (outcome: ProcessOutcome, fed: boolean) => void;
}

/** A held process not yet fed: `ended` once it ended unfed. */
interface Unfed {
  ended: ProcessOutcome | null;
}

class Starter {
  private worker: Worker | null = null;
  ready = false;
  /** Processes started from the thread so far. */
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
    this.send(id, { command, done }, { id, command });
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
    this.worker!.postMessage({ id, command, hold: true });
    return {
      feed: (input) =>
        new Promise((resolve) => {
          if (!this.unfed.delete(id)) return resolve({ outcome: entry.ended ?? gone, early: true });
          this.send(id, { command: { ...command, input }, done: (outcome, fed) => resolve({ outcome, early: !fed }) }, { id, input });
        }),
      cancel: () => {
        if (this.unfed.delete(id)) this.worker?.postMessage({ id, cancel: true });
      },
    };
  }

  private send(id: number, waiting: Waiting, message: object): void {
    this.pending.set(id, waiting);
    this.worker!.ref();
    this.worker!.postMessage(message);
  }

  private start(): void {
    if (this.worker || this.broken) return;
    let worker: Worker;
    try {
      worker = new Worker(THREAD_SOURCE, { eval: true });
    } catch {
      this.broken = true;
      return;
    }
    this.worker = worker;
    // The thread never keeps the daemon alive by itself; only while a process it started runs.
    worker.unref();
    worker.on('message', (message: 'ready' | { id: number; fed: boolean; outcome: ProcessOutcome }) => {
      if (message === 'ready') return void (this.ready = true);
      const unfed = this.unfed.get(message.id);
      if (unfed) {
        this.unfed.delete(message.id);
        unfed.ended = message.outcome;
        return;
      }
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      waiting?.done(message.outcome, message.fed);
    });
    // A thread that fails: what it had not answered starts here, and so does all that comes after;
    // a held process that was not fed is gone with it.
    const fail = () => {
      this.broken = true;
      const left = [...this.pending.values()];
      this.pending.clear();
      for (const entry of this.unfed.values()) entry.ended = gone;
      this.unfed.clear();
      for (const { command, done } of left) startHere(command, (outcome) => done(outcome, true));
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }
}

/** The outcome of a held process whose thread ended before it was fed. */
const gone: ProcessOutcome = { failed: { message: 'its thread ended' }, stdout: '', stderr: '' };

export const starter = new Starter();
