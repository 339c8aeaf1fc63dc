// One tmux client in control mode (`tmux -C`) that the backend keeps open for its commands: a
// command over it is a line on a pipe and its answer a block of lines, where every other call is
// a tmux process of its own (about as much CPU as the command's work, each time). The watchers
// ask tmux for its panes every second: over this client that costs nothing measurable.
//
// A control client must be attached to a session: it has one of its own (controlSession()), whose
// pane only sleeps and which is no Corral session (it carries no home tag). An answer ends with a
// line that names its command's number, which an agent's text (a screen read) cannot know: a line
// of a screen that reads like the end of another answer is part of this one.

import { spawn, type ChildProcess } from 'node:child_process';
import { TmuxError, tmuxQuote } from './tmuxRunner';

/** The commands that go over the control client: the backend's frequent ones. */
export const CONTROL_COMMANDS = new Set(['list-panes', 'capture-pane', 'send-keys', 'resize-window', 'set-option', 'kill-session', 'display-message']);

/** The session the control client of a home is attached to. */
export function controlSession(homeTag: string): string {
  return `corral-control-${homeTag}`;
}

/** The control client ended or stopped answering before the command's answer: it may be run another way. */
export class ControlLost extends TmuxError {
  readonly lost = true;
}

interface Pending {
  resolve(text: string): void;
  reject(err: Error): void;
  what: string;
}

export class TmuxControl {
  private readonly child: ChildProcess;
  /** Commands sent, in order: tmux answers them in the order they came. */
  private readonly pending: Pending[] = [];
  private partial = '';
  /** The lines of the answer being read (a %begin seen, its %end not yet). */
  private answer: { lines: string[]; ours: boolean; number: string } | null = null;
  private closed = false;
  private readonly ready: Promise<boolean>;

  /**
   * Attaches a control client to the home's control session, made if it is missing. `onClose`
   * is called once when the client ends (the server went away, or close()).
   */
  constructor(
    binary: string,
    socket: string,
    session: string,
    env: Record<string, string>,
    private readonly timeoutMs: number,
    private readonly onClose: () => void,
  ) {
    this.child = spawn(binary, ['-L', socket, '-f', '/dev/null', '-C', 'new-session', '-A', '-s', session, '--', '/bin/sh', '-c', 'while :; do sleep 86400; done'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env,
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.read(chunk));
    this.child.stdin!.on('error', () => this.end());
    this.child.on('error', () => this.end());
    this.child.on('exit', () => this.end());
    // The first answer is to the command that attached it: then it takes commands.
    this.ready = new Promise<boolean>((resolve) => this.pending.push({ resolve: () => resolve(true), reject: () => resolve(false), what: 'tmux -C new-session' }));
  }

  /** Whether the client attached (false: it ended first). */
  attached(): Promise<boolean> {
    return this.ready;
  }

  get open(): boolean {
    return !this.closed;
  }

  /** Whether a command of this name goes over the client (while it is open). */
  takes(name: string | undefined): boolean {
    return !this.closed && !!name && CONTROL_COMMANDS.has(name);
  }

  /** Runs one command (its name, then its arguments) and resolves with its output. */
  run(args: string[]): Promise<string> {
    const [name, ...rest] = args;
    const what = `tmux ${name}`;
    if (!this.takes(name)) return Promise.reject(new ControlLost(`${what} cannot go over the control client`, ''));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // An answer that never came leaves the order of answers unknown: this client is done.
        reject(new ControlLost(`${what} did not answer within ${this.timeoutMs} ms (control client)`, ''));
        this.close();
      }, this.timeoutMs);
      this.pending.push({
        what,
        resolve: (text) => {
          clearTimeout(timer);
          resolve(text);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      this.child.stdin!.write(`${[name, ...rest.map(tmuxQuote)].join(' ')}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.child.stdin!.end();
    this.child.kill('SIGKILL');
    this.end();
  }

  private read(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (this.answer) {
        // An answer ends with %end or %error and the numbers of its %begin.
        const end = /^%(end|error) \d+ (\d+) \d+$/.exec(line);
        if (!end || end[2] !== this.answer.number) {
          this.answer.lines.push(line);
          continue;
        }
        const { lines: body, ours } = this.answer;
        this.answer = null;
        if (!ours) continue;
        const waiting = this.pending.shift();
        const text = body.join('\n');
        if (end[1] === 'end') waiting?.resolve(body.length ? `${text}\n` : '');
        else waiting?.reject(new TmuxError(`${waiting.what} failed: ${text.trim()}`, text));
      } else {
        const begin = /^%begin \d+ (\d+) (\d+)$/.exec(line);
        // Flag 1: the answer to a command of this client (0: the command that attached it).
        if (begin) this.answer = { lines: [], number: begin[1]!, ours: (Number(begin[2]) & 1) === 1 || this.pending[0]?.what === 'tmux -C new-session' };
        // Anything else is a notification (%sessions-changed, %exit, ...): nothing the backend waits for.
      }
    }
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiting of this.pending.splice(0)) waiting.reject(new ControlLost(`${waiting.what} failed: the control client ended`, ''));
    this.onClose();
  }
}
