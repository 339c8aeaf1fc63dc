// Processes the daemon runs to their end (tmux commands, git), started from a thread of their own.
// Starting a process is a fork of the daemon and a wait until the child has run its program: on
// the daemon's own thread that held its event loop (every viewer's output, every echo) 8–9 ms a
// process, up to 41 ms, twice a second while agents print (the tmux watchers' looks; bench/README.md,
// "tmux commands started from a thread of their own"). Until the thread is up (the first process
// starts it), or if it fails, they start on the daemon's thread.

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
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
parentPort.on('message', ({ id, command: { file, args, input, ...options } }) => {
  const child = execFile(file, args, { ...options, encoding: 'utf8' }, (e, stdout, stderr) => {
    const failed = e && { code: e.code, killed: e.killed, message: e.message };
    parentPort.postMessage({ id, outcome: { failed, stdout, stderr } });
  });
  if (input !== undefined) child.stdin.on('error', () => {}).end(input);
});
parentPort.postMessage('ready');
`;

class Starter {
  private worker: Worker | null = null;
  ready = false;
  /** Processes started from the thread so far. */
  startedThere = 0;
  private broken = false;
  private next = 0;
  private readonly pending = new Map<number, { command: ProcessCommand; done: (outcome: ProcessOutcome) => void }>();

  run(command: ProcessCommand, done: (outcome: ProcessOutcome) => void): void {
    if (!this.ready || this.broken) {
      this.start();
      return startHere(command, done);
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
      worker = new Worker(THREAD_SOURCE, { eval: true });
    } catch {
      this.broken = true;
      return;
    }
    this.worker = worker;
    // The thread never keeps the daemon alive by itself; only while a process it started runs.
    worker.unref();
    worker.on('message', (message: 'ready' | { id: number; outcome: ProcessOutcome }) => {
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
      for (const { command, done } of left) startHere(command, done);
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }
}

export const starter = new Starter();
