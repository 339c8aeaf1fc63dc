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

/**
 * Paths to offer: the listed folder's children that start with the typed name, then recent
 * folders. Written as the person writes them: a path typed from the home folder (`~/…`) gets
 * `~/…` suggestions (a browser lists only suggestions that contain the text typed), others
 * absolute ones.
 */
export function folderSuggestions(typed: string, listed: FolderList | null, recent: string[], max = 50): string[] {
  const text = typed.trim();
  const partial = text === '~' ? '' : text.slice(text.lastIndexOf('/') + 1).toLowerCase();
  const base = listed ? (listed.path.endsWith('/') ? listed.path : `${listed.path}/`) : '';
  // Typed from home: the listed folder is home plus what follows "~/", so home is known too.
  const typedBase = text === '~' ? '~/' : text.slice(0, text.lastIndexOf('/') + 1);
  const home = listed && text.startsWith('~') && base.endsWith(typedBase.slice(2)) ? base.slice(0, base.length - typedBase.length + 2) : null;
  const written = (folder: string) => (home !== null && (folder + '/').startsWith(home) ? `~/${folder.slice(home.length)}` : folder);
  const children = listed ? listed.folders.filter((name) => name.toLowerCase().startsWith(partial)).map((name) => written(base + name)) : [];
  const known = recent.map(written).filter((folder) => !text || folder.toLowerCase().includes(text.toLowerCase()) || !listed);
  return [...new Set([...children, ...known])].slice(0, max);
}
