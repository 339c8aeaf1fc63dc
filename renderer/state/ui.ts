// What only the UI cares about: dialogs, font size, the sidebar, dismissed banners, the last error.
import { create } from 'zustand';
import type { ErrorCode, ErrorShape } from '../../daemon/contract/errors';

export type Dialog =
  | { kind: 'new-session' }
  | { kind: 'rename'; id: string }
  /** Removing a session with a worktree: keep it or remove it (and its branch); `refused` is the daemon's word when it refused. */
  | { kind: 'remove'; id: string; refused?: string }
  | { kind: 'confirm'; title: string; body: string; confirm: string; danger?: boolean; then(): void }
  | { kind: 'settings' }
  | { kind: 'usage' };

/** The colours: as the system says, or always one. */
export type ThemeChoice = 'system' | 'light' | 'dark';

/** A path printed in a session's terminal, opened beside it. */
export interface PreviewTarget {
  sessionId: string;
  path: string;
}

export interface UiState {
  dialog: Dialog | null;
  preview: PreviewTarget | null;
  /** The session whose changes are shown beside its terminal. */
  changesFor: string | null;
  /** How a diff is shown, remembered. */
  diffView: 'unified' | 'split';
  paletteOpen: boolean;
  /** The tab strip shows only the sessions that need their person. */
  needsFilter: boolean;
  fontSize: number;
  /** A font the person named for terminals ('' for the default stack). */
  fontFamily: string;
  theme: ThemeChoice;
  /** The agent last picked for a new session: the dialog offers it first next time. */
  lastCli: string | null;
  /** The host last picked for a new session (null for this machine): offered first while it is connected. */
  lastHost: string | null;
  searchOpen: boolean;
  /** The sidebar of sessions is shown, and how wide (px). */
  sidebarShown: boolean;
  sidebarWidth: number;
  /** The sidebar's groups (folders) that are collapsed. */
  collapsed: Set<string>;
  dismissed: Set<number>;
  /** This tab's credential only reads (a read-only token's link): it types nothing and changes nothing. */
  readOnly: boolean;
  /** The daemon is not answering (where the page watches its link): nothing typed reaches an agent until it is back. */
  linkDown: boolean;
  /** An engine error, shown next to the session it concerns (its code, where the engine gave one). */
  error: { sessionId: string | null; message: string; code?: ErrorCode } | null;
  open(dialog: Dialog | null): void;
  zoom(by: 1 | -1 | 0): number;
  setFontSize(size: number): number;
  setFontFamily(family: string): void;
  setTheme(theme: ThemeChoice): void;
  setSearch(open: boolean): void;
  dismiss(eventId: number): void;
  fail(sessionId: string | null, error: string | ErrorShape | null): void;
  openPreview(target: PreviewTarget | null): void;
  showChanges(sessionId: string | null): void;
  setDiffView(view: 'unified' | 'split'): void;
  setPalette(open: boolean): void;
  setNeedsFilter(on: boolean): void;
  pickedCli(name: string): void;
  pickedHost(host: string | null): void;
  showSidebar(shown: boolean): void;
  resizeSidebar(width: number): void;
  collapse(folder: string, collapsed: boolean): void;
}

export const FONT_DEFAULT = 14;
export const FONT_MIN = 8;
export const FONT_MAX = 32;
export const FONT_STACK = 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace';

/** The terminal's font-family list: a named font first (quotes and separators taken out), then the default stack. */
export function fontStack(named: string): string {
  const clean = named.replace(/["'`;,\\{}<>]/g, '').trim().slice(0, 80);
  return clean ? `"${clean}", ${FONT_STACK}` : FONT_STACK;
}
export const SIDEBAR_WIDTH = { min: 200, default: 300, max: 560 };
const sidebarWidth = (width: number) => Math.round(Math.max(SIDEBAR_WIDTH.min, Math.min(SIDEBAR_WIDTH.max, width)));
const load = <T>(key: string, fallback: T): T => {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
};
const save = (key: string, value: unknown) => {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // private mode: fine
  }
};

export const useUi = create<UiState>((set, get) => ({
  dialog: null,
  preview: null,
  changesFor: null,
  diffView: load<'unified' | 'split'>('corral.diffView', 'unified') === 'split' ? 'split' : 'unified',
  paletteOpen: false,
  needsFilter: false,
  fontSize: load('corral.fontSize', FONT_DEFAULT),
  fontFamily: load('corral.fontFamily', ''),
  theme: load<ThemeChoice>('corral.theme', 'system'),
  lastCli: load<string | null>('corral.lastCli', null),
  lastHost: load<string | null>('corral.lastHost', null),
  searchOpen: false,
  sidebarShown: load('corral.sidebarShown', true),
  sidebarWidth: sidebarWidth(load('corral.sidebarWidth', SIDEBAR_WIDTH.default)),
  collapsed: new Set(load<string[]>('corral.collapsedGroups', [])),
  dismissed: new Set(load<number[]>('corral.dismissed', [])),
  readOnly: false,
  linkDown: false,
  error: null,
  open: (dialog) => set({ dialog }),
  zoom: (by) => get().setFontSize(by === 0 ? FONT_DEFAULT : get().fontSize + by),
  setFontSize: (wanted) => {
    const size = Math.max(FONT_MIN, Math.min(FONT_MAX, Math.round(wanted) || FONT_DEFAULT));
    save('corral.fontSize', size);
    set({ fontSize: size });
    return size;
  },
  setFontFamily: (family) => {
    save('corral.fontFamily', family);
    set({ fontFamily: family });
  },
  setTheme: (theme) => {
    save('corral.theme', theme);
    set({ theme });
  },
  setSearch: (open) => set({ searchOpen: open }),
  dismiss: (eventId) => {
    const dismissed = new Set(get().dismissed).add(eventId);
    save('corral.dismissed', [...dismissed].slice(-500));
    set({ dismissed });
  },
  fail: (sessionId, error) => set({ error: error === null ? null : typeof error === 'string' ? { sessionId, message: error } : { sessionId, message: error.message, code: error.code } }),
  openPreview: (preview) => set({ preview }),
  showChanges: (changesFor) => set({ changesFor }),
  setDiffView: (diffView) => {
    save('corral.diffView', diffView);
    set({ diffView });
  },
  setPalette: (paletteOpen) => set({ paletteOpen }),
  setNeedsFilter: (needsFilter) => set({ needsFilter }),
  pickedCli: (name) => {
    save('corral.lastCli', name);
    set({ lastCli: name });
  },
  pickedHost: (host) => {
    save('corral.lastHost', host);
    set({ lastHost: host });
  },
  showSidebar: (sidebarShown) => {
    save('corral.sidebarShown', sidebarShown);
    set({ sidebarShown });
  },
  resizeSidebar: (width) => {
    save('corral.sidebarWidth', sidebarWidth(width));
    set({ sidebarWidth: sidebarWidth(width) });
  },
  collapse: (folder, collapsed) => {
    const next = new Set(get().collapsed);
    if (collapsed) next.add(folder);
    else next.delete(folder);
    save('corral.collapsedGroups', [...next]);
    set({ collapsed: next });
  },
}));
