// Previews of paths an agent prints (`src/app.ts:42:7`, `./docs/x.md`, `/tmp/run.log`), and
// saves of edited text. A click is a filesystem read on the person's behalf, so every read and
// write is fenced (fence.ts: the rules) and goes through a descriptor checked after it was
// opened (fencedOpen.ts), never through the path again.

import type fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { PathPreview } from '../contract/files';
import { CorralError } from '../contract/errors';
import type { Fence } from './fence';
import { descriptorAlias, openFenced, Refusal, type OpenHooks, type Opened } from './fencedOpen';

/** Text beyond this is cut (and cannot be saved back). */
export const TEXT_CAP = 256 * 1024;
export const IMAGE_CAP = 8 * 1024 * 1024;
export const LISTING_CAP = 1_000;

/** A printed path without what surrounds it: quotes, brackets, a `:line:col`, final punctuation. */
export function cleanPath(raw: string): { path: string; line: number | null } {
  let text = raw.trim().replace(/^["'`(<[{]+/, '');
  let line: number | null = null;
  // A compiler's `file(12,5)` first: its closing bracket is part of the suffix.
  const bracketed = /\((\d+)(?:,\d+)?\)$/.exec(text);
  if (bracketed) {
    line = Number(bracketed[1]);
    text = text.slice(0, bracketed.index);
  }
  text = text.replace(/["'`)>\]},;]+$/, '');
  const suffix = /:(\d+)(?::\d+)?$/.exec(text);
  if (!bracketed && suffix) {
    line = Number(suffix[1]);
    text = text.slice(0, suffix.index);
  }
  // A sentence's full stop is not part of the name; "." and ".." are names.
  if (text !== '.' && text !== '..') text = text.replace(/[.,:;!?]+$/, '');
  return { path: text, line: line && line > 0 ? line : null };
}

/** A printed path made absolute: relative to the session's folder, `~/` to the person's home. */
function absolute(fence: Fence, raw: string): string {
  const { path: cleaned } = cleanPath(raw);
  const wanted = cleaned.startsWith('~/') ? path.join(fence.userHome, cleaned.slice(2)) : cleaned;
  return path.resolve(fence.cwd, wanted || '.');
}

/** What a printed path is: text, an image, a folder listing, or why it cannot be shown. */
export async function previewPath(fence: Fence, raw: string, hooks?: OpenHooks): Promise<PathPreview> {
  const { line } = cleanPath(raw);
  let opened: Opened;
  try {
    opened = await openFenced(fence, absolute(fence, raw), 'read', hooks);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    return err.code === 'not_found' ? { kind: 'missing', path: err.file } : { kind: 'refused', path: err.file, reason: err.reason };
  }
  const { handle, real, stat, root } = opened;
  try {
    if (stat.isDirectory()) return await listFolder(handle, real, root);
    const head = await readStart(handle, Math.max(TEXT_CAP, 16));
    const mime = imageType(head);
    if (mime) {
      if (stat.size > IMAGE_CAP) return { kind: 'binary', path: real, size: stat.size };
      return { kind: 'image', path: real, size: stat.size, mime, base64: (await readStart(handle, stat.size)).toString('base64') };
    }
    if (head.subarray(0, 8192).includes(0)) return { kind: 'binary', path: real, size: stat.size };
    return {
      kind: 'text',
      path: real,
      size: stat.size,
      text: head.subarray(0, TEXT_CAP).toString('utf8'),
      truncated: stat.size > TEXT_CAP,
      line,
      version: versionOf(stat),
    };
  } finally {
    await handle.close();
  }
}

/**
 * Saves edited text over an existing file. Refused: anything the preview refuses, a file that
 * does not exist, a folder, a file too big to have been shown whole, a file with more than one
 * hard link (its other names may be outside the fence), and a file that changed since it was
 * read (an agent may have edited it meanwhile).
 *
 * It writes in place through the descriptor that was checked, not a temp file renamed over it:
 * Node has no openat/renameat, so a temp file and a rename would go by path again, which a
 * swapped folder redirects. In place also keeps the mode, owner and inode for free. The cost
 * is the old one: a crash mid-write leaves the file part written.
 */
export async function savePath(fence: Fence, raw: string, text: string, version: string, hooks?: OpenHooks): Promise<{ path: string; bytes: number; version: string }> {
  const { handle, real, stat } = await openFenced(fence, absolute(fence, raw), 'write', hooks);
  try {
    if (!stat.isFile()) throw new CorralError('bad_request', `${real} is not a file`, 'path');
    if (stat.nlink > 1) throw new CorralError('forbidden', `${real} has ${stat.nlink} hard links, and a save would change them all: edit it elsewhere`, 'path');
    if (stat.size > TEXT_CAP) throw new CorralError('bad_request', `${real} is larger than ${TEXT_CAP / 1024} KiB and was only shown in part: edit it elsewhere`, 'path');
    if (versionOf(stat) !== version) throw new CorralError('conflict', `${real} changed since it was opened: open it again to see the new text`, 'version');
    if ((await readStart(handle, 8192)).includes(0)) throw new CorralError('bad_request', `${real} is not a text file`, 'path');
    const bytes = Buffer.from(text, 'utf8');
    await handle.truncate(0);
    await handle.write(bytes, 0, bytes.length, 0);
    return { path: real, bytes: bytes.length, version: versionOf(await handle.stat()) };
  } finally {
    await handle.close();
  }
}

async function listFolder(handle: FileHandle, real: string, root: string): Promise<PathPreview> {
  // Listed through the descriptor: the path may lead elsewhere by now.
  const dirents = await fsp.readdir(descriptorAlias(handle), { withFileTypes: true });
  const entries = dirents
    .map((d) => ({ name: d.name, path: path.join(real, d.name), folder: d.isDirectory() }))
    .sort((a, b) => Number(b.folder) - Number(a.folder) || a.name.localeCompare(b.name));
  const truncated = entries.length > LISTING_CAP;
  const shown = entries.slice(0, LISTING_CAP);
  // Up one level, but never above the root of the fence.
  if (real !== root) shown.unshift({ name: '..', path: path.dirname(real), folder: true });
  return { kind: 'folder', path: real, entries: shown, truncated };
}

function imageType(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

async function readStart(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  let filled = 0;
  // A read may return less than asked before the end of the file.
  while (filled < bytes) {
    const { bytesRead } = await handle.read(buffer, filled, bytes - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function versionOf(stat: fs.Stats): string {
  return `${Math.trunc(stat.mtimeMs * 1000)}:${stat.size}`;
}
