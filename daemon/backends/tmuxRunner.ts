// Every call to tmux goes through here: Corral's own socket, no user config, UTF-8, a timeout,
// and an error that says which command failed and why.

import { holdProcess, startProcess, type HeldProcess, type ProcessOutcome } from '../util/startProcess';

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
  /** Written to the tmux client's stdin (what `load-buffer -` reads). */
  input?: string;
}

export class TmuxRunner {
  constructor(
    readonly socket: string,
    /** The environment of every tmux client it runs (its PATH says which tmux). */
    readonly baseEnv: Record<string, string>,
    private readonly timeoutMs = 5_000,
    readonly binary = 'tmux',
  ) {}

  /** A tmux client started ahead for the next `runReady`, waiting for its commands. */
  private ahead: HeldProcess | null = null;
  private closed = false;

  run(args: string[], options: RunOptions = {}): Promise<string> {
    const timeout = options.timeoutMs ?? this.timeoutMs;
    const command = { ...this.command(args, options.env, timeout), input: options.input };
    return startProcess(command).then((outcome) => this.answer(args, outcome, timeout));
  }

  /**
   * Runs a command a person waits for (a switch's look at a pane) through a tmux client started
   * ahead of it, which reads the command from its stdin (`source-file -`): the client's start
   * (its process, its connection to the server) is not in the wait: with 60 busy sessions, a
   * switch's look took 31–33 ms against 54–57 ms (bench/README.md, "A tmux client started
   * ahead"). The next one starts once this one has answered; with none ready, as `run`.
   */
  async runReady(args: string[]): Promise<string> {
    const ready = this.ahead;
    this.ahead = null;
    try {
      const fed = await ready?.feed(args.map((arg) => (arg === ';' ? ';' : tmuxQuote(arg))).join(' ') + '\n');
      if (fed && !fed.early) return this.answer(args, fed.outcome, this.timeoutMs);
      return await this.run(args);
    } finally {
      // A client waiting keeps the tmux server up: none is started once the runner is closed.
      if (!this.closed && !this.ahead) this.ahead = holdProcess(this.command(['source-file', '-'], undefined, this.timeoutMs));
    }
  }

  /** Ends the client started ahead, if one waits. */
  close(): void {
    this.closed = true;
    this.ahead?.cancel();
    this.ahead = null;
  }

  private command(args: string[], env: Record<string, string> | undefined, timeout: number) {
    // -u: the client is UTF-8 whatever the locale. Outside one (a daemon started over ssh or by
    // `env -i`), tmux prints control characters such as the looks' field separator as "_".
    const argv = ['-u', '-L', this.socket, '-f', '/dev/null', ...args];
    return { file: this.binary, args: argv, env: env ?? this.baseEnv, timeout, killSignal: 'SIGKILL' as const, maxBuffer: 64 * 1024 * 1024 };
  }

  private answer(args: string[], { failed, stdout, stderr }: ProcessOutcome, timeout: number): string {
    if (!failed) return stdout;
    const what = `tmux ${args[0]}`;
    if (failed.code === 'ENOENT') throw new TmuxError(`${this.binary} is not installed or not on PATH`, '');
    if (failed.killed) throw new TmuxError(`${what} did not answer within ${timeout} ms (socket ${this.socket})`, stderr);
    throw new TmuxError(`${what} failed: ${stderr.trim() || failed.message}`, stderr, stdout);
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
