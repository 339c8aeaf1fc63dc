// Every call to tmux goes through here: Corral's own socket, no user config, UTF-8, a timeout,
// and an error that says which command failed and why.

import { startProcess } from '../util/startProcess';

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

  run(args: string[], options: RunOptions = {}): Promise<string> {
    // -u: the client is UTF-8 whatever the locale. Outside one (a daemon started over ssh or by
    // `env -i`), tmux prints control characters such as the looks' field separator as "_".
    const argv = ['-u', '-L', this.socket, '-f', '/dev/null', ...args];
    const timeout = options.timeoutMs ?? this.timeoutMs;
    const command = { file: this.binary, args: argv, env: options.env ?? this.baseEnv, timeout, killSignal: 'SIGKILL' as const, maxBuffer: 64 * 1024 * 1024, input: options.input };
    return startProcess(command).then(({ failed, stdout, stderr }) => {
      if (!failed) return stdout;
      const what = `tmux ${args[0]}`;
      if (failed.code === 'ENOENT') throw new TmuxError(`${this.binary} is not installed or not on PATH`, '');
      if (failed.killed) throw new TmuxError(`${what} did not answer within ${timeout} ms (socket ${this.socket})`, stderr);
      throw new TmuxError(`${what} failed: ${stderr.trim() || failed.message}`, stderr, stdout);
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
