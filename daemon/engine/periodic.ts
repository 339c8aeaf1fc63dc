// A job the daemon runs every so often (the idle reaper, the screen watcher, git). A failure of
// one run is logged and the job goes on: one failed tmux call must never take the daemon down,
// nor be dropped without a word. The same failure again is not logged again until it clears.

export interface Periodic {
  /** No more runs; resolves once a run under way has ended (what it then fails of is not news). */
  stop(): Promise<void>;
}

/**
 * What one job (or one part of a job) says of its failures: each new one, once, and that it
 * works again after a round without one. The parts of the screen watcher keep one each, so a
 * failure says whose it is and the other parts go on.
 */
export class FailureLog {
  private lastFailure: string | null = null;
  private failedThisRound = false;

  constructor(
    private readonly name: string,
    private readonly log: (line: string) => void = console.error,
  ) {}

  failed(err: unknown): void {
    this.failedThisRound = true;
    const text = err instanceof Error ? err.message : String(err);
    if (text !== this.lastFailure) this.log(`corral: ${this.name} failed (it goes on): ${text}`);
    this.lastFailure = text;
  }

  /** Runs one piece of a round: a failure is logged, not thrown. */
  async guard(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.failed(err);
    }
  }

  /** A round is over: a failure that did not come back in it has cleared. */
  roundDone(): void {
    if (!this.failedThisRound && this.lastFailure !== null) {
      this.log(`corral: ${this.name} works again`);
      this.lastFailure = null;
    }
    this.failedThisRound = false;
  }
}

export function every(name: string, intervalMs: number, job: () => Promise<unknown>, log: (line: string) => void = console.error): Periodic {
  const failures = new FailureLog(name, log);
  const underWay = new Set<Promise<unknown>>();
  let stopped = false;
  const run = () => {
    let running: Promise<unknown>;
    try {
      running = job();
    } catch (err) {
      running = Promise.reject(err);
    }
    const settled = running.then(
      () => failures.roundDone(),
      (err: unknown) => {
        if (stopped) return;
        failures.failed(err);
        failures.roundDone();
      },
    );
    underWay.add(settled);
    void settled.then(() => underWay.delete(settled));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref?.();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all(underWay);
    },
  };
}
