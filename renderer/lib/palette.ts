// The command palette's items and how a query picks among them. Pure: the component only draws.

import { isRunning, type CliView, type SessionView } from '../../daemon/contract/session';
import type { Action } from './keys';

export type PaletteCommand =
  | { kind: 'go'; id: string }
  | { kind: 'restore'; id: string }
  | { kind: 'action'; action: Action }
  | { kind: 'archive'; id: string }
  | { kind: 'copy-link'; id: string }
  | { kind: 'toggle-needs-filter' }
  | { kind: 'enable-notifications' };

export interface PaletteItem {
  key: string;
  title: string;
  /** What else the query is matched against, shown dimmed. */
  detail: string;
  command: PaletteCommand;
}

export interface PaletteOptions {
  needsFilter: boolean;
  /** The browser could show notifications, if the person allows them. */
  offerNotifications?: boolean;
}

export function paletteItems(sessions: SessionView[], clis: CliView[], activeId: string | null, { needsFilter, offerNotifications = false }: PaletteOptions): PaletteItem[] {
  const label = (s: SessionView) => clis.find((c) => c.name === s.cli)?.label ?? s.cli;
  const detail = (s: SessionView) => [label(s), s.cli.toLowerCase() !== label(s).toLowerCase() ? s.cli : '', s.cwd, s.git ? s.git.branch : ''].filter(Boolean).join(' · ');
  const items: PaletteItem[] = [];
  const active = sessions.find((s) => s.id === activeId && s.archivedAt === null);
  if (active) {
    const up = isRunning(active.state);
    const name = active.name;
    items.push(
      up
        ? { key: 'stop', title: `Stop ${name}`, detail: 'its conversation is kept', command: { kind: 'action', action: { kind: 'stop' } } }
        : { key: 'start', title: `${active.resumable ? 'Resume' : 'Start'} ${name}`, detail: '', command: { kind: 'action', action: { kind: 'start' } } },
      { key: 'rename', title: `Rename ${name}…`, detail: '', command: { kind: 'action', action: { kind: 'rename' } } },
      { key: 'archive', title: `Archive ${name}`, detail: up ? 'stops it; everything is kept' : 'everything is kept', command: { kind: 'archive', id: active.id } },
      { key: 'restart', title: `Restart ${name} clean…`, detail: 'lets its conversation go', command: { kind: 'action', action: { kind: 'restart-clean' } } },
      { key: 'remove', title: `Remove ${name}…`, detail: '', command: { kind: 'action', action: { kind: 'remove' } } },
      { key: 'link', title: `Copy link to ${name}`, detail: `corral://session/${active.id}`, command: { kind: 'copy-link', id: active.id } },
    );
  }
  items.push(
    { key: 'new', title: 'New session…', detail: '', command: { kind: 'action', action: { kind: 'new-session' } } },
    { key: 'next-needing', title: 'Next session that needs you', detail: '', command: { kind: 'action', action: { kind: 'next-needing' } } },
    {
      key: 'needs-filter',
      title: needsFilter ? 'Show all sessions' : 'Show only sessions that need you',
      detail: '',
      command: { kind: 'toggle-needs-filter' },
    },
  );
  if (offerNotifications) {
    items.push({ key: 'notifications', title: 'Turn on notifications', detail: 'when a session needs you or ends by itself', command: { kind: 'enable-notifications' } });
  }
  for (const s of sessions) {
    if (s.archivedAt === null) items.push({ key: `go-${s.id}`, title: `Go to ${s.name}`, detail: detail(s), command: { kind: 'go', id: s.id } });
  }
  for (const s of sessions) {
    if (s.archivedAt !== null) items.push({ key: `restore-${s.id}`, title: `Restore ${s.name}`, detail: `archived · ${detail(s)}`, command: { kind: 'restore', id: s.id } });
  }
  return items;
}

/** Every word of the query must appear in the title or the detail; sessions first when searching. */
export function matchPalette(items: PaletteItem[], query: string): PaletteItem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items;
  const hits = items.filter((item) => {
    const haystack = `${item.title} ${item.detail}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
  const rank = (item: PaletteItem) => (item.command.kind === 'go' ? 0 : item.command.kind === 'restore' ? 1 : 2);
  return hits.sort((a, b) => rank(a) - rank(b));
}
