// A repository's own recipe for a new worktree, in `.corral/setup.toml`, committed with it:
//
//   [worktree]
//   copy  = [".env", ".env.local", "config/dev"]   # untracked files or folders, from the folder
//                                                   # the session was made from
//   setup = "npm ci"                                # run in the session's terminal before the agent
//
// Paths are relative to the repository's top and may not leave it. A file that is not there is
// skipped and said so; a bad file is an error that names its line.

import fs from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { tomlLine } from '../util/tomlLines';
import { z } from 'zod';
import { once } from '../util/once';
import { CorralError } from '../contract/errors';
import { inside } from '../util/paths';

export const SETUP_FILE = path.join('.corral', 'setup.toml');

export interface WorktreeSetup {
  copy: string[];
  setup: string | null;
}

// Made at the first recipe read, not when the daemon loads (zod with it: bench/README.md, a start).
const schema = once(() => {
  const relative = z
    .string()
    .min(1)
    .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), 'must be a path inside the repository (relative, without "..")');
  return z.strictObject({
    worktree: z.strictObject({ copy: z.array(relative).default([]), setup: z.string().optional() }).default({ copy: [] }),
  });
});

/** The recipe in a worktree (or none: nothing to copy, nothing to run). */
export function readSetup(worktree: string): WorktreeSetup {
  const file = path.join(worktree, SETUP_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { copy: [], setup: null };
  }
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    const where = err instanceof TomlError ? `${SETUP_FILE}:${err.line}:${err.column}` : SETUP_FILE;
    throw new CorralError('bad_request', `${where}: ${err instanceof TomlError ? err.message.split('\n')[0] : String(err)}`, 'setup');
  }
  const checked = schema().safeParse(raw);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    // Its line: of the key it names (an unknown one's own), in its table.
    const keys = (issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path).map(String);
    const line = keys.length === 0 ? undefined : keys.length === 1 ? tomlLine(text, null, keys[0]) : tomlLine(text, [keys[0]!], keys.slice(1).join('.'));
    throw new CorralError('bad_request', `${SETUP_FILE}${line ? `:${line}` : ''}: ${issue.path.join('.') || 'file'}: ${issue.message}`, 'setup');
  }
  const setup = checked.data.worktree.setup?.trim();
  return { copy: checked.data.worktree.copy, setup: setup ? setup : null };
}

/**
 * Copies the recipe's files from `from` into the worktree; what was not there is named. Each is
 * copied only from inside `from` to inside the worktree, as the real paths of the folders on its
 * way say: the recipe and the branch's files are anyone's, and a link committed on the way (`cfg
 * -> ../../../.ssh`) would read or write a file outside them. Such an item is refused, naming it,
 * and nothing is made. An item that is itself a link is copied as the link it is.
 */
export function copySetupFiles(from: string, worktree: string, copy: string[]): { copied: string[]; missing: string[] } {
  const copied: string[] = [];
  const missing: string[] = [];
  const roots = { from: fs.realpathSync(from), worktree: fs.realpathSync(worktree) };
  for (const item of copy) {
    const source = path.join(from, item);
    const target = path.join(worktree, item);
    // The item itself may be a link (copied as the link it is); the folders on its way may not lead out.
    const realFolder = realIfThere(path.dirname(source));
    if (realFolder === null || !fs.lstatSync(source, { throwIfNoEntry: false })) {
      missing.push(item);
      continue;
    }
    if (!inside(realFolder, roots.from)) throw leadsOut(item, 'its copy from the folder the session was made from');
    // Never over something the branch itself has (a link to anywhere included).
    if (fs.lstatSync(target, { throwIfNoEntry: false })) continue;
    // The deepest folder on the way that is there is where the copy lands: inside the worktree.
    let parent = path.dirname(target);
    while (!fs.existsSync(parent)) parent = path.dirname(parent);
    if (!inside(fs.realpathSync(parent), roots.worktree)) throw leadsOut(item, 'its place in the worktree');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.cpSync(source, target, { recursive: true, errorOnExist: false, force: false, verbatimSymlinks: true });
    copied.push(item);
  }
  return { copied, missing };
}

function realIfThere(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

function leadsOut(item: string, which: string): CorralError {
  return new CorralError('bad_request', `${SETUP_FILE}: copy: "${item}" leads out of the repository through a link (${which}): nothing was made`, 'setup');
}
