// Opening a path inside the fence so that what is checked is what was opened. A path can change
// between any check and an open (a folder swapped for a link, a file for a FIFO), so the path is
// opened once, and the rules are applied to the descriptor: its real path and its fstat. Every
// read, listing and write then goes through that descriptor, never through the path again.

import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ErrorCode } from '../contract/errors';
import { CorralError } from '../contract/errors';
import { FenceRules, type Fence } from './fence';

/** A refusal of one path, with the reason apart: a preview shows it, a save throws it. */
export class Refusal extends CorralError {
  constructor(
    code: ErrorCode,
    readonly file: string,
    readonly reason: string,
  ) {
    super(code, `${file}: ${reason}`, 'path');
  }
}

/** Test seams, where a swap would land: between the resolving and the open, and after the checks. */
export interface OpenHooks {
  beforeOpen?(real: string): void | Promise<void>;
  afterChecks?(real: string): void | Promise<void>;
}

export interface Opened {
  handle: FileHandle;
  /** The real path of what was opened. */
  real: string;
  /** fstat of what was opened: a regular file or a folder. */
  stat: fs.Stats;
  /** The fence folder it is in. */
  root: string;
}

/** macOS 11+: fail with ELOOP if any part of the path is a link (not in Node's constants). */
const O_NOFOLLOW_ANY = 0x2000_0000;

/**
 * Opens a printed path (already made absolute) for reading, or for a save's in-place write,
 * and checks what was opened. Throws a Refusal: `not_found` for what is not there, `forbidden`
 * for the fence's refusals, `bad_request` for what cannot be done to it. The caller closes the
 * handle.
 */
export async function openFenced(fence: Fence, lexical: string, mode: 'read' | 'write', hooks: OpenHooks = {}): Promise<Opened> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    // Windows has neither /proc nor O_NOFOLLOW_ANY: Node cannot tell what a handle opened.
    throw new Refusal('forbidden', lexical, `previews need Linux or macOS, where Corral can check what it opened (this is ${process.platform})`);
  }
  const rules = await FenceRules.of(fence);
  refuseIf(lexical, rules.refusal(lexical, 'named'));
  // Resolving first refuses a link that leads out before anything is opened, and gives a path
  // with no link in it: O_NOFOLLOW(_ANY) then turns a link that appears meanwhile into ELOOP.
  const resolved = await fsp.realpath(lexical).catch((err: unknown) => refuseError(lexical, err, mode));
  refuseIf(lexical, rules.refusal(resolved, 'leads'));
  await hooks.beforeOpen?.(resolved);
  const handle = await fsp.open(resolved, openFlags(mode)).catch((err: unknown) => refuseError(lexical, err, mode));
  try {
    const stat = await handle.stat();
    // Unlinked between the open and now: it is no longer anywhere, in the fence or out.
    if (stat.nlink === 0) throw new Refusal('not_found', lexical, 'does not exist');
    const real = await descriptorPath(handle, resolved, lexical);
    refuseIf(lexical, rules.refusal(real, 'leads'));
    if (!stat.isFile() && !stat.isDirectory()) refuseIf(lexical, 'not a file or a folder (a FIFO, socket or device), which Corral never opens');
    await hooks.afterChecks?.(real);
    return { handle, real, stat, root: rules.rootOf(real)! };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (then fstat refuses it).
 * O_NOCTTY: a terminal never becomes the daemon's. No O_CREAT, no O_TRUNC: a save only ever
 * changes a file after it was checked, through its descriptor.
 */
function openFlags(mode: 'read' | 'write'): number {
  const { O_RDONLY, O_RDWR, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = fs.constants;
  const access = mode === 'read' ? O_RDONLY : O_RDWR;
  return access | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | (process.platform === 'darwin' ? O_NOFOLLOW_ANY : 0);
}

/**
 * The real path of an open descriptor. Linux: the kernel's own answer, /proc/self/fd/N. macOS:
 * Node cannot ask F_GETPATH, so the open used O_NOFOLLOW_ANY on a path with no link in it: a
 * link anywhere in it at the moment of the open fails with ELOOP, so what opened is at exactly
 * the path that was checked, and symlinked parts are refused rather than followed.
 */
async function descriptorPath(handle: FileHandle, opened: string, lexical: string): Promise<string> {
  if (process.platform === 'darwin') return opened;
  const real = await fsp.readlink(`/proc/self/fd/${handle.fd}`).catch(() => '');
  if (!path.isAbsolute(real)) throw new Refusal('forbidden', lexical, 'Corral could not tell what it opened (is /proc mounted?)');
  return real;
}

/** A path to the opened descriptor itself, for what Node does only by path (listing a folder). */
export function descriptorAlias(handle: FileHandle): string {
  // Linux: the magic link reaches the opened folder, whatever its path has become. macOS: an
  // open of /dev/fd/N is a dup of N.
  return process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : `/dev/fd/${handle.fd}`;
}

function refuseIf(file: string, reason: string | null): void {
  if (reason) throw new Refusal('forbidden', file, reason);
}

/** What each error of an open means to the person, as a refusal the API already speaks. */
const OPEN_ERRORS: Record<string, { code: ErrorCode; why: string }> = {
  ENOENT: { code: 'not_found', why: 'does not exist' },
  ENOTDIR: { code: 'not_found', why: 'does not exist (a part of its path is not a folder)' },
  ELOOP: { code: 'forbidden', why: 'a link in its path loops, or appeared while Corral opened it' },
  EACCES: { code: 'forbidden', why: 'Corral is not permitted to open it' },
  EPERM: { code: 'forbidden', why: 'Corral is not permitted to open it' },
  ENXIO: { code: 'forbidden', why: 'a socket or device, which Corral never opens' },
  ENODEV: { code: 'forbidden', why: 'a device, which Corral never opens' },
  EROFS: { code: 'forbidden', why: 'on a read-only file system' },
  ETXTBSY: { code: 'forbidden', why: 'a program that is running, which cannot be written' },
  EISDIR: { code: 'bad_request', why: 'it is a folder, which is not a file' },
  ENAMETOOLONG: { code: 'bad_request', why: 'the path is too long' },
};

function refuseError(file: string, err: unknown, mode: 'read' | 'write'): never {
  const known = OPEN_ERRORS[(err as NodeJS.ErrnoException)?.code ?? ''];
  if (!known) throw err;
  const why = known.code === 'not_found' && mode === 'write' ? `${known.why} (saving never creates a file)` : known.why;
  throw new Refusal(known.code, file, why);
}
