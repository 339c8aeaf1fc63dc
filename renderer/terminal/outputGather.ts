// A stream's output on its way to xterm.js: written as it comes, except under a flood, where it
// is gathered and written in larger pieces. xterm.js draws after each write it has parsed, and a
// drawing costs about the same whether it shows 4 KB or 100 KB more (bench/README.md, figure 2).

/**
 * This many bytes within FLOOD_WINDOW_MS is a flood, until FLOOD_WINDOW_MS after it. Low enough
 * that a page on a loaded machine, which receives a flood at a few hundred KB a second, still
 * gathers it: written as it came, it drew at almost every animation frame (bench/README.md).
 */
export const FLOOD_BYTES = 16 * 1024;
export const FLOOD_WINDOW_MS = 100;
/** Under a flood, output is gathered for up to GATHER_MS, or until it is GATHER_MAX bytes. */
export const GATHER_MS = 50;
export const GATHER_MAX = 128 * 1024;

export class OutputGather {
  private gathered: Uint8Array[] = [];
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The bytes that came since `start`, to tell a flood from the rest. */
  private recent = { start: -Infinity, bytes: 0 };
  private floodUntil = -Infinity;

  constructor(private readonly write: (data: Uint8Array) => void) {}

  /** Output that came at `now`; `urgent` (a keystroke's echo may be in it) writes it at once. */
  take(data: Uint8Array, now: number, urgent: boolean): void {
    if (now - this.recent.start > FLOOD_WINDOW_MS) this.recent = { start: now, bytes: 0 };
    const flooding = now < this.floodUntil;
    this.recent.bytes += data.byteLength;
    if (this.recent.bytes >= FLOOD_BYTES) this.floodUntil = now + FLOOD_WINDOW_MS;
    if (urgent || (!this.timer && !flooding)) {
      this.flush();
      this.write(data);
      return;
    }
    this.gathered.push(data);
    this.bytes += data.byteLength;
    if (this.bytes >= GATHER_MAX) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Writes what was gathered now, in one piece. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.gathered.length === 0) return;
    let data = this.gathered[0]!;
    if (this.gathered.length > 1) {
      data = new Uint8Array(this.bytes);
      let at = 0;
      for (const part of this.gathered) {
        data.set(part, at);
        at += part.byteLength;
      }
    }
    this.gathered = [];
    this.bytes = 0;
    this.write(data);
  }

  /** Drops what was gathered (the terminal is gone). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.gathered = [];
    this.bytes = 0;
  }
}
