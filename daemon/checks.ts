// Checks of what a request names, each failing with a typed error that names the field.

import fs from 'node:fs';
import path from 'node:path';
import type { CliSpec } from './catalogue';
import { NAME_MAX } from './contract/session';
import { CorralError } from './errors';

export function checkFolder(cwd: unknown): string {
  if (typeof cwd !== 'string' || cwd.trim() === '') throw new CorralError('bad_request', 'cwd must be a folder path', 'cwd');
  if (!path.isAbsolute(cwd)) throw new CorralError('bad_request', `cwd must be an absolute path, not ${JSON.stringify(cwd)}`, 'cwd');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(cwd);
  } catch {
    throw new CorralError('cwd_missing', `the folder ${cwd} does not exist`, 'cwd');
  }
  if (!stat.isDirectory()) throw new CorralError('cwd_not_folder', `${cwd} is not a folder`, 'cwd');
  return path.resolve(cwd);
}

export function checkName(name: unknown): string {
  if (typeof name !== 'string') throw new CorralError('bad_name', 'name must be text', 'name');
  const trimmed = name.trim();
  if (trimmed === '') throw new CorralError('bad_name', 'name must not be empty', 'name');
  if ([...trimmed].length > NAME_MAX) throw new CorralError('bad_name', `name must be at most ${NAME_MAX} characters`, 'name');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) throw new CorralError('bad_name', 'name must not contain control characters', 'name');
  return trimmed;
}

export function defaultName(cwd: string): string {
  const base = path.basename(cwd) || cwd;
  return [...base].slice(0, NAME_MAX).join('');
}

export function notInstalled(cli: CliSpec): CorralError {
  return new CorralError('cli_not_installed', `${cli.label} is not installed: "${cli.command}" was not found on PATH`, 'cli');
}

