// How long each stage of one piece of work took, for the log when the whole is slow: a start that
// takes seconds on a busy machine says which stage held it (a queue, a check, a tmux call).

export class Stages {
  private readonly began: number;
  private current: { name: string; began: number } | null = null;
  private readonly done: [string, number][] = [];

  constructor(private readonly now: () => number = () => performance.now()) {
    this.began = now();
  }

  /** The stage under way (if any) ends and `name` begins. */
  enter(name: string): void {
    const at = this.now();
    if (this.current) this.done.push([this.current.name, at - this.current.began]);
    this.current = { name, began: at };
  }

  /** Milliseconds since it began. */
  elapsed(): number {
    return this.now() - this.began;
  }

  /** Each stage and its time, the one under way last: "queue 0 ms, tmux list-panes 12 ms, tmux source-file 5210 ms". */
  toString(): string {
    const at = this.now();
    const all = this.current ? [...this.done, [this.current.name, at - this.current.began] as const] : this.done;
    return all.map(([name, spent]) => `${name} ${Math.round(spent)} ms`).join(', ');
  }
}

/**
 * Runs `work` with its own Stages and says in the log when it is slow: once while it is still
 * under way after `slowMs` (the last stage named is the one it is in, in case it never ends),
 * and once when it ends, if it took longer, with every stage's time.
 */
export async function timed<T>(what: string, slowMs: number, work: (stages: Stages) => Promise<T>, log: (line: string) => void = console.error): Promise<T> {
  const stages = new Stages();
  const seconds = () => `${(stages.elapsed() / 1000).toFixed(1)} s`;
  const watch = setTimeout(() => log(`corral: ${what} is still under way after ${seconds()}: ${stages}`), slowMs);
  watch.unref();
  let outcome = 'failed after';
  try {
    const value = await work(stages);
    outcome = 'took';
    return value;
  } finally {
    clearTimeout(watch);
    if (stages.elapsed() >= slowMs) log(`corral: ${what} ${outcome} ${seconds()}: ${stages}`);
  }
}
