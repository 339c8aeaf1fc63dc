// Output from a session to one viewer: batched per turn of the event loop (never held back
// by a timer), with acknowledgements. When
// the viewer is more than 100,000 characters behind, its source is paused until it is under
// 5,000 (VS Code's watermarks). Used by every transport (WebSocket, IPC).

import type { Attachment } from './backends/backend';

export const HIGH_WATER = 100_000;
export const LOW_WATER = 5_000;
const BATCH_MAX = 256 * 1024;

export class OutputPump {
  private pending = '';
  private scheduled: NodeJS.Immediate | null = null;
  private unacked = 0;
  private paused = false;
  private source: Attachment | null = null;

  constructor(private readonly send: (chunk: string) => void) {}

  /** The source to pause and resume; output may arrive before it is known. */
  attach(source: Attachment): void {
    this.source = source;
    this.apply();
  }

  push(data: string): void {
    this.pending += data;
    if (this.pending.length >= BATCH_MAX) return this.flush();
    // Whatever the source gave in this turn of the event loop goes in one frame: a flood is
    // gathered into few frames, and a keystroke's echo waits for nothing.
    if (!this.scheduled) this.scheduled = setImmediate(() => this.flush());
  }

  ack(chars: number): void {
    if (!Number.isFinite(chars) || chars < 0) return;
    this.unacked = Math.max(0, this.unacked - chars);
    this.apply();
  }

  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    this.unacked += chunk.length;
    this.send(chunk);
    this.apply();
  }

  dispose(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.pending = '';
  }

  private apply(): void {
    if (!this.source) return;
    if (!this.paused && this.unacked > HIGH_WATER) {
      this.paused = true;
      this.source.pause();
    } else if (this.paused && this.unacked < LOW_WATER) {
      this.paused = false;
      this.source.resume();
    }
  }
}
