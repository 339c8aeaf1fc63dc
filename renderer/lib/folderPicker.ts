// What the new-session dialog suggests as the folder is typed: the folders inside the folder
// typed so far (asked of the daemon, which lists its own disk), then recent folders.

import type { FolderList } from '../../daemon/contract/files';

/** The folder to list for what is typed ("/a/b/c" → "/a/b/", "~" → "~"), or null when it is not a path yet. */
export function folderToList(typed: string): string | null {
  const text = typed.trim();
  if (text === '~') return '~';
  if (!text.startsWith('/') && !text.startsWith('~/')) return null;
  return text.slice(0, text.lastIndexOf('/') + 1);
}

/** Absolute paths to offer: the listed folder's children that start with the typed name, then recent folders. */
export function folderSuggestions(typed: string, listed: FolderList | null, recent: string[], max = 50): string[] {
  const text = typed.trim();
  const partial = text === '~' ? '' : text.slice(text.lastIndexOf('/') + 1).toLowerCase();
  const base = listed ? (listed.path.endsWith('/') ? listed.path : `${listed.path}/`) : '';
  const children = listed ? listed.folders.filter((name) => name.toLowerCase().startsWith(partial)).map((name) => base + name) : [];
  const known = recent.filter((folder) => !text || folder.toLowerCase().includes(text.toLowerCase()) || !listed);
  return [...new Set([...children, ...known])].slice(0, max);
}
