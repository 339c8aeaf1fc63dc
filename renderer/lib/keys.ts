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
