// A job the daemon runs every so often (the idle reaper, the screen watcher, git). A failure of
// one run is logged and the job goes on: one failed tmux call must never take the daemon down,
// nor be dropped without a word. The same failure again is not logged again until it clears.

export interface Periodic {
  stop(): void;
}

export function every(name: string, intervalMs: number, job: () => Promise<unknown>, log: (line: string) => void = console.error): Periodic {
  let lastFailure: string | null = null;
  const run = () => {
    let running: Promise<unknown>;
    try {
      running = job();
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(
      () => {
        if (lastFailure !== null) log(`corral: ${name} works again`);
        lastFailure = null;
      },
      (err: unknown) => {
        const text = err instanceof Error ? err.message : String(err);
        if (text !== lastFailure) log(`corral: ${name} failed (it goes on): ${text}`);
        lastFailure = text;
      },
    );
  };
  const timer = setInterval(run, intervalMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
