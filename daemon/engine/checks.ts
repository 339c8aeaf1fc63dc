// Checks of what a request names, each failing with a typed error that names the field.

import fs from 'node:fs';
import path from 'node:path';
import type { CliSpec } from '../catalogue/catalogue';
import { NAME_MAX } from '../contract/session';
import { CorralError } from '../contract/errors';
import { fromHome } from '../files/folders';
import { BIDI_CONTROLS, codePoint, CONTROLS, HIDDEN_RUNS, INVISIBLE } from '../contract/hiddenCharacters';

/** A session's folder: absolute, or `~`/`~/…` in the person's home folder (`home`); it must exist. */
export function checkFolder(asked: unknown, home: string): string {
  if (typeof asked !== 'string' || asked.trim() === '') throw new CorralError('bad_request', 'cwd must be a folder path', 'cwd');
  const cwd = fromHome(asked, home);
  if (!path.isAbsolute(cwd)) throw new CorralError('bad_request', `cwd must be an absolute path or start with ~/, not ${JSON.stringify(asked)}`, 'cwd');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(cwd);
  } catch {
    throw new CorralError('cwd_missing', `the folder ${cwd} does not exist`, 'cwd');
  }
  if (!stat.isDirectory()) throw new CorralError('cwd_not_folder', `${cwd} is not a folder`, 'cwd');
  return path.resolve(cwd);
}

// A name is shown in terminals, tab strips and titles: control characters could drive a
// terminal (set its title, clear it), bidi embeddings, overrides and isolates reorder what is
// shown (U+202A–U+202E, U+2066–U+2069), and characters drawn as nothing make one name look
// like another (contract/hiddenCharacters.ts).

export function checkName(name: unknown): string {
  if (typeof name !== 'string') throw new CorralError('bad_name', 'name must be text', 'name');
  const trimmed = name.trim();
  if (trimmed === '') throw new CorralError('bad_name', 'name must not be empty', 'name');
  if ([...trimmed].length > NAME_MAX) throw new CorralError('bad_name', `name must be at most ${NAME_MAX} characters`, 'name');
  if (CONTROLS.test(trimmed)) throw new CorralError('bad_name', 'name must not contain control characters', 'name');
  if (BIDI_CONTROLS.test(trimmed)) throw new CorralError('bad_name', 'name must not contain bidi controls (U+202A–U+202E, U+2066–U+2069)', 'name');
  const hidden = INVISIBLE.exec(trimmed);
  if (hidden) {
    const at = [...trimmed.slice(0, hidden.index)].length + 1;
    throw new CorralError('bad_name', `name must not contain characters that are not shown: ${codePoint(hidden[0])} at character ${at} would make it look like another name`, 'name');
  }
  return trimmed;
}

/**
 * A session's name when none was given: its folder's, made safe (a hostile folder name gives a
 * plain name, never a failed create), numbered (" 2", " 3", …) past the names `taken`.
 */
export function defaultName(cwd: string, taken: ReadonlySet<string> = new Set()): string {
  const shown = [...(path.basename(cwd) || cwd).replace(HIDDEN_RUNS, '_')].slice(0, NAME_MAX).join('').trim() || 'session';
  let name = shown;
  for (let n = 2; taken.has(name); n++) {
    const suffix = ` ${n}`;
    name = [...shown].slice(0, NAME_MAX - suffix.length).join('').trimEnd() + suffix;
  }
  return name;
}

export function notInstalled(cli: CliSpec): CorralError {
  // A command with a slash is taken as it is written (catalogue.ts), never looked for on PATH.
  const where = cli.command.includes('/') ? 'is not an executable file (a path must be absolute)' : 'was not found on PATH';
  return new CorralError('cli_not_installed', `${cli.label} is not installed: "${cli.command}" ${where}`, 'cli');
}
