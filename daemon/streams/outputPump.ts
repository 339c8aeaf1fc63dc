// Output from a session to one viewer: batched per turn of the event loop, as UTF-8 bytes (a
// backend's bytes as they came, or its text encoded once), each frame whole characters, with
// acknowledgements. A keystroke's echo goes out at once; under a flood (the last frame was big
// and left moments ago), or while the viewer has not typed lately, output is gathered a few
// milliseconds more, because a viewer (and the daemon) pays per frame far more than per byte.
// When the viewer is more than 350,000 bytes behind, its source is paused until it is under
// 250,000 (VS Code's watermarks, sized for a browser page: see LOW_WATER). Used by every
// transport (WebSocket, IPC), which tells it when its viewer types.

import { isUtf8 } from 'node:buffer';
import type { Attachment } from '../backends/backend';
import { unfinished } from '../util/utf8';

/**
 * A page draws its terminal at each animation frame (20–50 ms of drawing under a flood) and parses
 * what it holds in between: resumed while it still holds LOW_WATER, it has output to parse
 * through a drawing and the ack's round trip, instead of drawing again with nothing new. Between
 * the two marks lie 100,000 bytes, as before: a viewer holds its source back (the pty backend's
 * 1 s rule) only while it parses that much (bench/README.md, "What bounds the throughput figures").
 */
export const HIGH_WATER = 350_000;
export const LOW_WATER = 250_000;
/** Bytes gathered from the source before a frame goes at once. */
const BATCH_MAX = 256 * 1024;
/** This much sent within FLOOD_WINDOW_MS means a flood… */
const FLOOD_BYTES = 16 * 1024;
const FLOOD_WINDOW_MS = 10;
/** A gathered frame goes as soon as it is this many bytes. */
const GATHER_MAX = 32 * 1024;
/** …and then each frame gathers until this long after the one before. */
export const FLOOD_GATHER_MS = 5;
/** After the viewer types, its output goes at once for this long: the echo, and the agent's answer. */
export const TYPED_MS = 500;
/**
 * Output of a session the viewer has not typed into lately gathers until this long after the
 * frame before: a busy agent's steady output came in a frame per write of its tmux client, each
 * a `writev` in the daemon (bench/README.md, "The tmux client's output as bytes, and fewer frames").
 */
export const STEADY_GATHER_MS = 10;

export class OutputPump {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The start of a character the source's last chunk ended inside of: it goes with the rest. */
  private split: Uint8Array | null = null;
  private scheduled: NodeJS.Immediate | null = null;
  private gathering: NodeJS.Timeout | null = null;
  private lastFrameAt = -Infinity;
  private typedAt = -Infinity;
  /** What was sent since `start`, to tell a flood from a keystroke's echo. */
  private window = { start: 0, bytes: 0 };
  /** Bytes sent and not yet acknowledged. */
  private unacked = 0;
  private paused = false;
  private source: Attachment | null = null;

  /** `send` is given each frame's own bytes (a fresh buffer, never a view of a shared one). */
  constructor(private readonly send: (frame: Uint8Array) => void) {}

  /** The source to pause and resume; output may arrive before it is known. */
  attach(source: Attachment): void {
    this.source = source;
    this.apply();
  }

  push(data: string | Uint8Array): void {
    let bytes = typeof data === 'string' ? Buffer.from(data) : data;
    if (this.split) {
      bytes = Buffer.concat([this.split, bytes]);
      this.split = null;
    }
    const whole = bytes.length - unfinished(bytes);
    if (whole < bytes.length) {
      this.split = Uint8Array.from(bytes.subarray(whole));
      bytes = bytes.subarray(0, whole);
    }
    if (!bytes.length) return;
    // A character cut short by the source goes as U+FFFD, so that every frame decodes: tmux cuts
    // one where it drops output to a client that reads slowly (and an agent may print anything).
    if (!isUtf8(bytes)) bytes = Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= (this.gathering ? GATHER_MAX : BATCH_MAX)) return this.flush();
    // Whatever the source gave in this turn of the event loop goes in one frame, at once,
    // unless a flood is on or the viewer has not typed lately: then a little more.
    if (!this.scheduled && !this.gathering) this.scheduled = setImmediate(() => this.flushOrGather());
  }

  /** The viewer typed: what comes for a while is taken for its echo, and goes at once. */
  typed(): void {
    this.typedAt = performance.now();
    // What is being gathered goes now: the echo is behind it.
    if (this.gathering && !this.flooding(this.typedAt)) this.flush();
  }

  private flushOrGather(): void {
    this.scheduled = null;
    const now = performance.now();
    const since = now - this.lastFrameAt;
    const gather = this.flooding(now) ? FLOOD_GATHER_MS : now - this.typedAt > TYPED_MS ? STEADY_GATHER_MS : 0;
    if (since < gather) {
      this.gathering = setTimeout(() => this.flush(), gather - since);
    } else {
      this.flush();
    }
  }

  private flooding(now: number): boolean {
    return now - this.window.start <= FLOOD_WINDOW_MS && this.window.bytes >= FLOOD_BYTES;
  }

  ack(bytes: number): void {
    if (!Number.isFinite(bytes) || bytes < 0) return;
    this.unacked = Math.max(0, this.unacked - bytes);
    this.apply();
  }

  flush(): void {
    this.cancel();
    if (!this.pendingBytes) return;
    const frame = joined(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const now = performance.now();
    if (now - this.window.start > FLOOD_WINDOW_MS) this.window = { start: now, bytes: 0 };
    this.window.bytes += frame.length;
    this.lastFrameAt = now;
    this.unacked += frame.length;
    this.send(frame);
    this.apply();
  }

  /** The source ended: what it gave goes now, a character it left unfinished as U+FFFD. */
  end(): void {
    if (this.split) {
      const rest = Buffer.from(Buffer.from(this.split).toString('utf8'));
      this.split = null;
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    this.flush();
  }

  dispose(): void {
    this.cancel();
    this.pending = [];
    this.pendingBytes = 0;
    this.split = null;
  }

  private cancel(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    if (this.gathering) clearTimeout(this.gathering);
    this.scheduled = null;
    this.gathering = null;
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

/** The chunks as one frame with a buffer of its own: a chunk that is a view of a larger buffer (a pool's) is copied. */
function joined(chunks: Uint8Array[], length: number): Uint8Array {
  const only = chunks[0]!;
  if (chunks.length === 1 && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength) return only;
  const frame = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    frame.set(chunk, at);
    at += chunk.length;
  }
  return frame;
}
