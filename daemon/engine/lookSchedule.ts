// When to look again at something only a process can tell (a folder's git status, a worktree's
// state): looking costs git processes, so a thing is looked at only when it may have changed.
// One rule for the git watcher and the worktree looks.

/** A thing nothing says has changed is looked at this often anyway (a file edited by hand)… */
export const IDLE_LOOK_MS = 10 * 60_000;
/** …at most this many in a tick, so that they spread out instead of coming all at once. */
const IDLE_LOOKS_A_TICK = 3;

export class LookSchedule<Key> {
  /** Each thing's last look: when (the engine's clock), and its stamp just before. */
  private readonly looked = new Map<Key, { at: number; stamp: string }>();
  /** The last tick each thing was seen at work. */
  private readonly workedAt = new Map<Key, number>();
  private tick = -Infinity;
  private idleLooks = 0;

  /** @param workingEveryMs how often a thing at work is looked at (0: at every tick). */
  constructor(private readonly workingEveryMs: number) {}

  /** A tick begins: what `sawWork` and `due` say is of this moment. */
  startTick(now: number): void {
    this.tick = now;
    this.idleLooks = 0;
  }

  /**
   * What was seen of the work on this thing (an agent printing in its folder): at work at this
   * tick, or else last seen at work `seenAt` (work that began and ended between two ticks is
   * looked at once after).
   */
  sawWork(key: Key, atWork: boolean, seenAt?: number): void {
    const at = atWork ? this.tick : seenAt;
    if (at !== undefined) this.workedAt.set(key, Math.max(at, this.workedAt.get(key) ?? -Infinity));
  }

  /**
   * Whether to look now, given the stamp (`stat`s of the files a change shows in) read just
   * before: at the first tick; when the stamp changed; while at work, every `workingEveryMs`;
   * once more at the first tick after the work ended (the state it left); and otherwise every
   * IDLE_LOOK_MS, a few a tick. A look said due is taken as made `now`, when it begins (a tick's
   * looks run one after another, and work seen before a look began is work that look sees), or,
   * for a thing at work at this tick, at the tick: its work goes on past the look.
   */
  due(key: Key, stamp: string, now = this.tick): boolean {
    const last = this.looked.get(key);
    const worked = this.workedAt.get(key) ?? -Infinity;
    let due: boolean;
    if (last === undefined || last.stamp !== stamp) due = true;
    else if (worked === this.tick) due = this.tick - last.at >= this.workingEveryMs;
    else due = worked >= last.at || (this.tick - last.at >= IDLE_LOOK_MS && this.idleLooks++ < IDLE_LOOKS_A_TICK);
    if (due) this.looked.set(key, { at: worked === this.tick ? this.tick : now, stamp });
    return due;
  }

  /** A look made outside a tick (at once, for a reason of its own). */
  lookedAt(key: Key, now: number, stamp: string): void {
    this.looked.set(key, { at: now, stamp });
  }

  /** Looked at again at the next tick whatever the stamp says. */
  forget(key: Key): void {
    this.looked.delete(key);
  }

  /** Nothing more to look at (a session gone): what was known of it goes. */
  drop(key: Key): void {
    this.looked.delete(key);
    this.workedAt.delete(key);
  }
}
