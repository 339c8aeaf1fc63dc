// Learning a resume key from a file the CLI writes (e.g. Codex's rollout files), for CLIs
// that pick their own session id. The catalogue names the files with a glob and the key with
// a pattern; the engine looks while the session runs and stores the key the moment it shows.

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { glob } from '../util/glob';
import type { KeyFromFile } from './catalogue';

/** How much of each file is read: a CLI writes its id in its first line. */
export const KEY_FILE_HEAD_BYTES = 64 * 1024;

export interface KeyFileSearch {
  /** The session's folder, for a pattern's {cwd}. */
  cwd: string;
  /** The environment the CLI got, for the glob's $VARIABLES. */
  env: Record<string, string | undefined>;
  /** Only files changed at or after this (epoch ms) can belong to this launch. */
  since: number;
  /** Keys other sessions already hold: never this session's. */
  taken: ReadonlySet<string>;
  /** Whether a conversation made at `born` (epoch ms) may be this session's (default: any). */
  owns?: (born: number) => boolean;
}

/** ~/ and $VAR, ${VAR} or ${VAR:-default}; an unset variable without a default expands to nothing. */
export function expandPath(template: string, env: Record<string, string | undefined>): string {
  const home = env.HOME || os.homedir();
  const tilde = (text: string) => (text === '~' || text.startsWith('~/') ? home + text.slice(1) : text);
  const expanded = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, braced?: string, fallback?: string, bare?: string) => {
    const value = env[(braced ?? bare)!];
    return value ? value : fallback !== undefined ? tilde(fallback) : '';
  });
  return tilde(expanded);
}

/** The key in the oldest matching file changed since the launch that the session owns, or null. */
export async function findKeyInFiles(spec: KeyFromFile, search: KeyFileSearch): Promise<string | null> {
  // The folder as Corral named it, or as the CLI's getcwd() sees it (symlinks resolved).
  const real = await fs.realpath(search.cwd).catch(() => search.cwd);
  const folders = [...new Set([search.cwd, real])].map((dir) => escapeRegExp(jsonText(dir)));
  const pattern = new RegExp(spec.pattern.replaceAll('{cwd}', `(?:${folders.join('|')})`), 'm');
  const { base, rest } = splitGlob(expandPath(spec.glob, search.env));
  if (!path.isAbsolute(base)) return null;
  const files = rest ? await glob(rest, { cwd: base, absolute: true, onlyFiles: true, followSymbolicLinks: false }).catch(() => []) : [base];
  const fresh: { file: string; born: number }[] = [];
  for (const file of files) {
    const stat = await fs.stat(file).catch(() => null);
    // A second of slack: some filesystems keep whole-second times. Made when it was born, where
    // the filesystem says (its last change otherwise).
    if (stat?.isFile() && stat.mtimeMs >= search.since - 1_000) fresh.push({ file, born: stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs });
  }
  fresh.sort((a, b) => a.born - b.born);
  for (const { file, born } of fresh) {
    if (search.owns && !search.owns(born)) continue;
    const key = pattern.exec(await readHead(file))?.[1];
    if (key && !search.taken.has(key)) return key;
  }
  return null;
}

/** The folder part of a glob (no wildcard in it) and the pattern below it. */
export function splitGlob(full: string): { base: string; rest: string } {
  const parts = full.split('/');
  const wild = parts.findIndex((part) => /[*?[\]{}!]/.test(part));
  if (wild === -1) return { base: full, rest: '' };
  return { base: parts.slice(0, wild).join('/') || '/', rest: parts.slice(wild).join('/') };
}

async function readHead(file: string): Promise<string> {
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return '';
  try {
    const buffer = Buffer.alloc(KEY_FILE_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** How a folder appears inside a JSON string (what CLIs write). */
function jsonText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
