// Previews of paths an agent prints (`src/app.ts:42:7`, `./docs/x.md`, `/tmp/run.log`).
// A click is a filesystem read on the person's behalf, so every read and write is fenced:
// to the session's folder and the temp folder, after symlinks are resolved, and never a
// credential file, wherever it is.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PathPreview } from './contract/files';
import { CorralError } from './errors';

/** Text beyond this is cut (and cannot be saved back). */
export const TEXT_CAP = 256 * 1024;
export const IMAGE_CAP = 8 * 1024 * 1024;
export const LISTING_CAP = 1_000;

export interface Fence {
  /** The session's folder: relative paths start here. */
  cwd: string;
  /** Other folders any session may read (the temp folder). */
  shared: string[];
}

export function defaultSharedRoots(): string[] {
  return [...new Set([os.tmpdir(), '/tmp'])].filter((dir) => fs.existsSync(dir));
}

/** Names that hold keys, tokens or passwords: refused even inside the fence. */
const CREDENTIAL_FILES = [
  /^\.env(\..*)?$/i,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i,
  /^\.(npmrc|netrc|pypirc|pgpass|git-credentials|bw-session|htpasswd|dockercfg)$/i,
  /^(credentials|secrets?)(\.(json|ya?ml|toml|txt))?$/i,
  /^\.?authinfo(\.gpg)?$/i,
];
/** Folders whose whole content is credentials. */
const CREDENTIAL_DIRS = new Set(['.ssh', '.gnupg', '.aws', '.docker', '.kube', '.password-store']);

export function isCredential(file: string): boolean {
  const parts = file.split(/[\\/]+/).filter(Boolean);
  if (parts.some((part) => CREDENTIAL_DIRS.has(part.toLowerCase()))) return true;
  const base = parts.at(-1) ?? '';
  return CREDENTIAL_FILES.some((pattern) => pattern.test(base));
}

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

interface Resolved {
  /** Where the path points, symlinks followed. */
  real: string;
  /** The fence root it is inside. */
  root: string;
}

/** Resolves a printed path inside the fence; a refusal or absence comes back as a preview. */
async function resolve(fence: Fence, raw: string): Promise<Resolved | PathPreview> {
  const { path: cleaned } = cleanPath(raw);
  const wanted = cleaned.startsWith('~/') ? path.join(os.homedir(), cleaned.slice(2)) : cleaned;
  const lexical = path.resolve(fence.cwd, wanted || '.');
  const roots = await fenceRoots(fence);
  if (isCredential(lexical)) return { kind: 'refused', path: lexical, reason: 'this looks like a credential file, which Corral never opens' };
  if (!roots.some((root) => inside(lexical, root.lexical) || inside(lexical, root.real))) {
    return { kind: 'refused', path: lexical, reason: "outside the session's folder and the temp folder" };
  }
  let real: string;
  try {
    real = await fsp.realpath(lexical);
  } catch {
    return { kind: 'missing', path: lexical };
  }
  const root = roots.find((r) => inside(real, r.real));
  if (!root) return { kind: 'refused', path: lexical, reason: "a link that leads outside the session's folder and the temp folder" };
  if (isCredential(real)) return { kind: 'refused', path: lexical, reason: 'this leads to a credential file, which Corral never opens' };
  return { real, root: root.real };
}

/** What a printed path is: text, an image, a folder listing, or why it cannot be shown. */
export async function previewPath(fence: Fence, raw: string): Promise<PathPreview> {
  const { line } = cleanPath(raw);
  const resolved = await resolve(fence, raw);
  if ('kind' in resolved) return resolved;
  const { real, root } = resolved;
  const stat = await fsp.stat(real);
  if (stat.isDirectory()) return listFolder(real, root);
  if (!stat.isFile()) return { kind: 'binary', path: real, size: stat.size };
  const head = await readStart(real, Math.max(TEXT_CAP, 16));
  const mime = imageType(head);
  if (mime) {
    if (stat.size > IMAGE_CAP) return { kind: 'binary', path: real, size: stat.size };
    return { kind: 'image', path: real, size: stat.size, mime, base64: (await readStart(real, stat.size)).toString('base64') };
  }
  if (head.subarray(0, 8192).includes(0)) return { kind: 'binary', path: real, size: stat.size };
  const truncated = stat.size > TEXT_CAP;
  return {
    kind: 'text',
    path: real,
    size: stat.size,
    text: head.subarray(0, TEXT_CAP).toString('utf8'),
    truncated,
    line,
    version: versionOf(stat),
  };
}

/**
 * Saves edited text over an existing file, keeping its mode. Refused: anything the preview
 * refuses, a file that does not exist, a folder, a file too big to have been shown whole, and a
 * file that changed since it was read (an agent may have edited it meanwhile).
 */
export async function savePath(fence: Fence, raw: string, text: string, version: string): Promise<{ path: string; bytes: number; version: string }> {
  const resolved = await resolve(fence, raw);
  if ('kind' in resolved) {
    const why = resolved.kind === 'refused' ? `${resolved.path}: ${resolved.reason}` : `${resolved.path} does not exist (saving never creates a file)`;
    throw new CorralError(resolved.kind === 'refused' ? 'forbidden' : 'not_found', why, 'path');
  }
  const stat = await fsp.stat(resolved.real);
  if (!stat.isFile()) throw new CorralError('bad_request', `${resolved.real} is not a file`, 'path');
  if (stat.size > TEXT_CAP) throw new CorralError('bad_request', `${resolved.real} is larger than ${TEXT_CAP / 1024} KiB and was only shown in part: edit it elsewhere`, 'path');
  if (versionOf(stat) !== version) {
    throw new CorralError('conflict', `${resolved.real} changed since it was opened: open it again to see the new text`, 'version');
  }
  if ((await readStart(resolved.real, 8192)).includes(0)) throw new CorralError('bad_request', `${resolved.real} is not a text file`, 'path');
  const bytes = Buffer.from(text, 'utf8');
  // No O_CREAT: only an existing file. O_NOFOLLOW: the path checked is the path written.
  const handle = await fsp.open(resolved.real, fs.constants.O_WRONLY | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  return { path: resolved.real, bytes: bytes.length, version: versionOf(await fsp.stat(resolved.real)) };
}

async function listFolder(real: string, root: string): Promise<PathPreview> {
  const dirents = await fsp.readdir(real, { withFileTypes: true });
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

async function readStart(file: string, bytes: number): Promise<Buffer> {
  // The path was resolved and checked; a link put in its place since is not followed.
  const handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function versionOf(stat: fs.Stats): string {
  return `${Math.trunc(stat.mtimeMs * 1000)}:${stat.size}`;
}

async function fenceRoots(fence: Fence): Promise<{ lexical: string; real: string }[]> {
  const roots = [fence.cwd, ...fence.shared].map((dir) => path.resolve(dir));
  return Promise.all(roots.map(async (lexical) => ({ lexical, real: await fsp.realpath(lexical).catch(() => lexical) })));
}

function inside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
