// Output from a session to one viewer: batched (at most ~5 ms), with acknowledgements. When
// the viewer is more than 100,000 characters behind, its source is paused until it is under
// 5,000 (VS Code's watermarks). Used by every transport (WebSocket, IPC).

import type { Attachment } from './backends/backend';

export const HIGH_WATER = 100_000;
export const LOW_WATER = 5_000;
export const BATCH_MS = 5;
const BATCH_MAX = 256 * 1024;

export class OutputPump {
  private pending = '';
  private timer: NodeJS.Timeout | null = null;
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
    if (this.pending.length >= BATCH_MAX) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), BATCH_MS);
  }

  ack(chars: number): void {
    if (!Number.isFinite(chars) || chars < 0) return;
    this.unacked = Math.max(0, this.unacked - chars);
    this.apply();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    this.unacked += chunk.length;
    this.send(chunk);
    this.apply();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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
