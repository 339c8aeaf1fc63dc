// What a session changed: every file that differs from its base (committed on its branch,
// staged, unstaged, or new and untracked), with lines added and removed, and each file's diff.
// "Its base" is where its branch left the base branch (the merge base), so work that landed on
// the base since is not counted as the session's. For a session without a worktree, the base is
// HEAD: what is not committed yet.

import fs from 'node:fs';
import path from 'node:path';
import type { ChangedFile, ChangeKind, FileDiff } from '../contract/changes';
import { CorralError } from '../contract/errors';
import { read } from './git';

/** The longest diff of one file that is sent whole. */
export const DIFF_MAX = 1024 * 1024;
/** Untracked files larger than this are counted as changed but their lines are not read. */
const UNTRACKED_READ_MAX = 4 * 1024 * 1024;

/** Where the session's changes start: the merge base of HEAD and `base` (or HEAD itself). */
export async function changesBase(folder: string, base: string | null, env?: NodeJS.ProcessEnv): Promise<string> {
  const run = { cwd: folder, env };
  if (base === null) return (await read(['rev-parse', '--verify', 'HEAD^{commit}'], run)).trim();
  return (await read(['merge-base', '--end-of-options', base, 'HEAD'], run)).trim();
}

/** A `git diff` read that runs no command the repository's config names (an external diff driver, a text conversion). */
const readDiff = (args: string[], options: Parameters<typeof read>[1]) => read(['diff', '--no-ext-diff', '--no-textconv', ...args], options);

/** Every changed file since `from` (a commit), untracked files included, by path. */
export async function changedFiles(folder: string, from: string, env?: NodeJS.ProcessEnv): Promise<ChangedFile[]> {
  const run = { cwd: folder, env };
  const [status, numstat, untracked] = await Promise.all([
    readDiff(['--name-status', '-z', '-M', '--end-of-options', from], run),
    readDiff(['--numstat', '-z', '-M', '--end-of-options', from], run),
    read(['ls-files', '--others', '--exclude-standard', '-z'], run),
  ]);
  const counts = parseNumstat(numstat);
  const files: ChangedFile[] = parseNameStatus(status).map((entry) => {
    const count = counts.get(entry.path);
    return { ...entry, added: count?.added ?? null, removed: count?.removed ?? null, binary: count ? count.added === null : false };
  });
  for (const file of untracked.split('\0').filter(Boolean)) files.push({ path: file, kind: 'untracked', ...countNewFile(path.join(folder, file)) });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One file's diff since `from`. Only a path `changedFiles` names is asked for. */
export async function fileDiff(folder: string, from: string, file: string, env?: NodeJS.ProcessEnv): Promise<FileDiff> {
  const changed = (await changedFiles(folder, from, env)).find((f) => f.path === file);
  if (!changed) throw new CorralError('not_found', `${file} has no changes`, 'path');
  const run = { cwd: folder, env };
  const diff =
    changed.kind === 'untracked'
      ? // "They differ" is its exit code 1.
        await readDiff(['--no-index', '--', '/dev/null', file], { ...run, okCodes: [1] })
      : await readDiff(['-M', '--end-of-options', from, '--', ...(changed.from ? [changed.from] : []), file], run);
  const tooLarge = Buffer.byteLength(diff) > DIFF_MAX;
  return { path: file, diff: tooLarge ? '' : diff, binary: changed.binary, tooLarge };
}

function parseNameStatus(text: string): { path: string; from?: string; kind: ChangeKind }[] {
  const parts = text.split('\0');
  const out: { path: string; from?: string; kind: ChangeKind }[] = [];
  for (let i = 0; i < parts.length; ) {
    const code = parts[i++];
    if (!code) continue;
    if (code.startsWith('R') || code.startsWith('C')) {
      const from = parts[i++]!;
      const to = parts[i++]!;
      out.push(code.startsWith('R') ? { path: to, from, kind: 'renamed' } : { path: to, kind: 'added' });
    } else {
      const file = parts[i++]!;
      out.push({ path: file, kind: code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'T' ? 'typechange' : 'modified' });
    }
  }
  return out;
}

/** `--numstat -z`: "added\tremoved\tpath\0", or for a rename "added\tremoved\t\0from\0to\0"; "-" for binary. */
function parseNumstat(text: string): Map<string, { added: number | null; removed: number | null }> {
  const parts = text.split('\0');
  const out = new Map<string, { added: number | null; removed: number | null }>();
  for (let i = 0; i < parts.length; ) {
    const line = parts[i++];
    if (!line) continue;
    const [added, removed, file] = line.split('\t');
    const to = file === '' ? (i++, parts[i++]) : file;
    if (to === undefined) continue;
    out.set(to, { added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed) });
  }
  return out;
}

function countNewFile(file: string): { added: number | null; removed: number | null; binary: boolean } {
  try {
    const stat = fs.lstatSync(file);
    // A link or a large file: changed, lines not counted.
    if (!stat.isFile() || stat.size > UNTRACKED_READ_MAX) return { added: null, removed: 0, binary: false };
    const bytes = fs.readFileSync(file);
    if (bytes.subarray(0, 8000).includes(0)) return { added: null, removed: 0, binary: true };
    const text = bytes.toString('utf8');
    return { added: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0), removed: 0, binary: false };
  } catch {
    return { added: null, removed: 0, binary: false };
  }
}
