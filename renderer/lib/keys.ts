// The app's keyboard shortcuts. Mod is Cmd on a Mac, Ctrl elsewhere.

export type Action =
  | { kind: 'new-session' }
  | { kind: 'switch-to'; index: number }
  | { kind: 'next-tab' }
  | { kind: 'next-needing' }
  | { kind: 'previous-tab' }
  | { kind: 'search' }
  | { kind: 'palette' }
  | { kind: 'archive' }
  | { kind: 'copy' }
  | { kind: 'paste' }
  | { kind: 'zoom'; by: 1 | -1 | 0 }
  | { kind: 'stop' }
  | { kind: 'start' }
  | { kind: 'restart-clean' }
  | { kind: 'remove' }
  | { kind: 'rename' }
  | { kind: 'toggle-sidebar' }
  | { kind: 'focus-sessions' }
  | { kind: 'changes' };

export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

export function shortcut(event: KeyLike, mac: boolean): Action | null {
  const mod = mac ? event.metaKey : event.ctrlKey;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (event.ctrlKey && key === 'Tab') return event.shiftKey ? { kind: 'previous-tab' } : { kind: 'next-tab' };
  // What a browser's tab cannot have (its own new tab, next tab), on keys it leaves to the page:
  // Alt (Ctrl+Option on a Mac, where Option types characters; by its code, for the same reason).
  const alt = mac ? event.ctrlKey && event.altKey && !event.metaKey : event.altKey && !event.ctrlKey && !event.metaKey;
  if (alt && !event.shiftKey) {
    if (event.code === 'KeyN' || key === 'n') return { kind: 'new-session' };
    if (key === 'PageDown') return { kind: 'next-tab' };
    if (key === 'PageUp') return { kind: 'previous-tab' };
  }
  if (key === 'F2' && !mod && !event.altKey) return { kind: 'rename' };
  if (!mod || event.altKey) return null;
  if (event.shiftKey) {
    switch (key) {
      case 'c':
        return { kind: 'copy' };
      case 'v':
        return { kind: 'paste' };
      case 's':
        return { kind: 'stop' };
      case 'r':
        return { kind: 'start' };
      case 'k':
        return { kind: 'restart-clean' };
      case 'w':
        return { kind: 'remove' };
      case 'b':
        return { kind: 'toggle-sidebar' };
      case 'e':
        return { kind: 'focus-sessions' };
      case 'd':
        return { kind: 'changes' };
      case '+':
        return { kind: 'zoom', by: 1 };
    }
    return null;
  }
  if (/^[1-9]$/.test(key)) return { kind: 'switch-to', index: Number(key) - 1 };
  switch (key) {
    case 't':
      return { kind: 'new-session' };
    case 'j':
      return { kind: 'next-needing' };
    case 'k':
      return { kind: 'palette' };
    case 'f':
      return { kind: 'search' };
    case '=':
    case '+':
      return { kind: 'zoom', by: 1 };
    case '-':
      return { kind: 'zoom', by: -1 };
    case '0':
      return { kind: 'zoom', by: 0 };
  }
  return null;
}

export const isMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** Where the page runs: on a Mac (Cmd for Ctrl), and in a browser's tab rather than the desktop app. */
export interface KeyContext {
  mac: boolean;
  browser: boolean;
}

/** The page's context: the desktop app's preload gives it `window.corral`. */
export const keyContext = (): KeyContext => ({ mac: isMac(), browser: typeof window === 'undefined' || !(window as { corral?: unknown }).corral });

/**
 * The keys of an action, as a person presses them there; undefined for none. A browser keeps
 * its own shortcuts (Ctrl+T, Ctrl+Tab, Ctrl+1–9, Ctrl+Shift+W close its tabs and windows, and never
 * reach the page): in a browser's tab the page offers keys a browser leaves to it, or none.
 */
export function keyLabel(name: string, { mac, browser }: KeyContext): string | undefined {
  const mod = mac ? 'Cmd' : 'Ctrl';
  const alt = mac ? 'Ctrl+Option' : 'Alt';
  const index = /^switch-(\d)$/.exec(name);
  if (index) return browser ? undefined : `${mod}+${index[1]}`;
  const keys: Record<string, string | undefined> = {
    stop: `${mod}+Shift+S`,
    start: `${mod}+Shift+R`,
    rename: 'F2',
    restart: `${mod}+Shift+K`,
    remove: browser ? undefined : `${mod}+Shift+W`,
    new: browser ? `${alt}+N` : `${mod}+T`,
    'next-tab': browser ? `${alt}+PageDown` : 'Ctrl+Tab',
    'previous-tab': browser ? `${alt}+PageUp` : 'Ctrl+Shift+Tab',
    'next-needing': `${mod}+J`,
    palette: `${mod}+K`,
    search: `${mod}+F`,
    sidebar: `${mod}+Shift+B`,
    sessions: `${mod}+Shift+E`,
    changes: `${mod}+Shift+D`,
  };
  return keys[name];
}

/** " (keys)" after a control's words, or nothing when there are none. */
export function withKeys(words: string, name: string, context: KeyContext): string {
  const keys = keyLabel(name, context);
  return keys ? `${words} (${keys})` : words;
}
