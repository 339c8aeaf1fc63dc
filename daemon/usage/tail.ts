// Reads what a transcript gained since the last look: only new bytes, whole lines only, in
// chunks that give the event loop back between them. A file replaced (another inode), cut
// shorter or rewritten under its first bytes is read again from its start.

import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Where reading a file stopped, and what the file was then. */
export interface Tail {
  path: string;
  ino: number;
  /** Size and mtime at the last look: unchanged, nothing is read. */
  size: number;
  mtimeMs: number;
  /** The byte after the last whole line counted. */
  offset: number;
  /** The file's first bytes as read, to see a file rewritten in place. */
  head: Buffer | null;
}

export type Change = 'none' | 'grown' | 'reset' | 'gone';

const CHUNK = 1024 * 1024;
const HEAD = 256;

export function newTail(path: string): Tail {
  return { path, ino: -1, size: 0, mtimeMs: 0, offset: 0, head: null };
}

/** What happened to the file since the last look; on 'reset' the caller forgets what it counted from it. */
export async function look(tail: Tail): Promise<Change> {
  let stat: Stats;
  try {
    stat = await fs.stat(tail.path);
  } catch {
    return 'gone';
  }
  if (stat.ino === tail.ino && stat.size === tail.size && stat.mtimeMs === tail.mtimeMs) return 'none';
  const fresh = tail.ino === -1;
  let reset = !fresh && (stat.ino !== tail.ino || stat.size < tail.offset);
  if (!reset && tail.head) {
    const handle = await fs.open(tail.path, 'r');
    try {
      const head = Buffer.alloc(tail.head.length);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      reset = bytesRead < head.length || !head.equals(tail.head);
    } finally {
      await handle.close();
    }
  }
  tail.ino = stat.ino;
  tail.size = stat.size;
  tail.mtimeMs = stat.mtimeMs;
  if (reset) {
    tail.offset = 0;
    tail.head = null;
    return 'reset';
  }
  return tail.offset < stat.size ? 'grown' : 'none';
}

export interface ReadOptions {
  /** Only lines holding one of these strings are parsed: the rest are skipped unread. */
  needles: readonly string[];
  /** Each parsed line, in order. */
  onLine(value: unknown): void;
  /** After each chunk: the bytes it read. */
  onBytes(bytes: number): void;
}

/**
 * Reads from the offset to the size `look` saw, a chunk at a time. A last line with no newline
 * yet, or a last line that is not yet valid JSON, stays for the next look: never half counted.
 */
export async function readNew(tail: Tail, options: ReadOptions): Promise<void> {
  const handle = await fs.open(tail.path, 'r');
  try {
    let carry = Buffer.alloc(0);
    let position = tail.offset;
    while (position < tail.size) {
      const want = Math.min(CHUNK, tail.size - position);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      if (position === 0) tail.head = Buffer.from(buffer.subarray(0, Math.min(HEAD, bytesRead)));
      position += bytesRead;
      options.onBytes(bytesRead);
      const data = carry.length ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      const lastNewline = data.lastIndexOf(0x0a);
      if (lastNewline < 0) {
        carry = Buffer.from(data);
        continue;
      }
      const start = position - data.length;
      const atEnd = position >= tail.size && lastNewline === data.length - 1;
      const stopped = eachLine(data.toString('utf8', 0, lastNewline + 1), start, atEnd, options);
      if (stopped !== null) {
        tail.offset = stopped;
        return;
      }
      tail.offset = start + lastNewline + 1;
      carry = Buffer.from(data.subarray(lastNewline + 1));
      await nextTurn();
    }
  } finally {
    await handle.close();
  }
}

/**
 * Parses the lines that hold a needle. Returns the offset to stop at when the file's last line
 * is not valid JSON yet (a writer caught between its bytes), else null.
 */
function eachLine(text: string, start: number, atEnd: boolean, options: ReadOptions): number | null {
  let from = 0;
  // Each needle's next place, found again only once passed: a rare needle is searched for once a chunk, not once a line.
  const next = options.needles.map(() => -1);
  while (from < text.length) {
    let hit = -1;
    options.needles.forEach((needle, i) => {
      if (next[i] !== Infinity && next[i]! < from) {
        const at = text.indexOf(needle, from);
        next[i] = at < 0 ? Infinity : at;
      }
      if (next[i]! < (hit < 0 ? Infinity : hit)) hit = next[i]!;
    });
    if (hit < 0) return null;
    const lineStart = text.lastIndexOf('\n', hit) + 1;
    const lineEnd = text.indexOf('\n', hit);
    let value: unknown;
    try {
      value = JSON.parse(text.slice(lineStart, lineEnd));
    } catch {
      // A broken line in the middle is skipped; the last one may still be being written.
      if (atEnd && lineEnd === text.length - 1) return start + Buffer.byteLength(text.slice(0, lineStart));
      from = lineEnd + 1;
      continue;
    }
    options.onLine(value);
    from = lineEnd + 1;
  }
  return null;
}
