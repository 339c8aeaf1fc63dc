// The folders inside a folder, for the new-session dialog's folder picker (the web UI has no
// native one). Names only, of folders only; hidden folders are left out and a huge folder is
// cut short. `~` stands for the person's home folder.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/errors';
import type { FolderList } from '../contract/files';

export const FOLDERS_MAX = 500;

/** `~` and `~/…` in the home folder; anything else as it is. */
export function fromHome(asked: string, home: string): string {
  return asked === '~' ? home : asked.startsWith('~/') ? path.join(home, asked.slice(2)) : asked;
}

/** `~` and `~/…` as the home folder; anything else must already be absolute. */
export function expandHome(asked: string, home = os.homedir()): string {
  const expanded = fromHome(asked, home);
  if (!path.isAbsolute(expanded)) throw new CorralError('bad_request', `path must be absolute or start with ~/, not ${JSON.stringify(asked)}`, 'path');
  return path.resolve(expanded);
}

export async function listFolders(asked: string, home = os.homedir()): Promise<FolderList> {
  const folder = expandHome(asked.trim() || '~', home);
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(folder, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CorralError('cwd_missing', `the folder ${folder} does not exist`, 'path');
    if (code === 'ENOTDIR') throw new CorralError('cwd_not_folder', `${folder} is not a folder`, 'path');
    if (code === 'EACCES' || code === 'EPERM') throw new CorralError('forbidden', `the folder ${folder} cannot be read (permission denied)`, 'path');
    throw err;
  }
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory() || (entry.isSymbolicLink() && (await isFolder(path.join(folder, entry.name))))) names.push(entry.name);
  }
  names.sort((a, b) => a.localeCompare(b));
  return { path: folder, parent: folder === path.dirname(folder) ? null : path.dirname(folder), folders: names.slice(0, FOLDERS_MAX), truncated: names.length > FOLDERS_MAX };
}

async function isFolder(file: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(file)).isDirectory();
  } catch {
    return false;
  }
}
