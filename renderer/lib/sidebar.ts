// The sidebar's list: sessions grouped by the folder they work in, in the order the person gave
// them. Pure: the component only draws.

import { LOCAL_HOST } from '../../daemon/contract/hosts';
import type { CliView, SessionView } from '../../daemon/contract/session';
import { hostOf } from './remote';

export interface SessionGroup {
  /** The folder: its title. */
  folder: string;
  /** What its collapsed state is remembered by: the folder, after its host's name on a remote host ("devbox:/src/app"). */
  key: string;
  /** Its last part, or the last two where another group's last part is the same. */
  name: string;
  /** Its sessions that are shown (all of them, or with the filter on those that need you). */
  sessions: SessionView[];
  /** Counts of all its sessions, whatever the filter (an exit nobody asked for needs you too, as in the tab strip). */
  total: number;
  needing: number;
}

/**
 * The groups of the sessions that are not archived, in the order of their first session. A
 * session's group is its folder; one in a git repository joins the group of a session whose
 * folder holds its own and is in a repository too (the repository's folder, as far as the
 * sessions tell). With the filter on, only the sessions that need you (and the active one).
 */
export function groupSessions(sessions: SessionView[], needsFilter: boolean, activeId: string | null): SessionGroup[] {
  const open = sessions.filter((s) => s.archivedAt === null);
  // A session in a worktree of its own is its repository's (the worktree's folder is Corral's).
  const where = (s: SessionView) => trimSlash(s.worktree?.repo ?? s.cwd);
  const repoFolders = [...new Set(open.filter((s) => s.git !== null).map(where))];
  const folderOf = (s: SessionView) => {
    const cwd = where(s);
    if (s.git === null) return cwd;
    const holders = repoFolders.filter((f) => isWithin(cwd, f));
    return holders.reduce((shortest, f) => (f.length < shortest.length ? f : shortest), cwd);
  };
  const groups = new Map<string, SessionGroup>();
  for (const session of open) {
    const folder = folderOf(session);
    let group = groups.get(folder);
    if (!group) groups.set(folder, (group = { folder, key: folder, name: '', sessions: [], total: 0, needing: 0 }));
    group.total++;
    if (session.needsYou !== null) group.needing++;
    if (!needsFilter || session.needsYou !== null || session.id === activeId) group.sessions.push(session);
  }
  const list = [...groups.values()];
  for (const group of list) group.name = shortName(group.folder, list.map((g) => g.folder));
  return needsFilter ? list.filter((g) => g.sessions.length > 0) : list;
}

/** A machine's part of the sidebar: this machine's (host null) or a remote host's, its folders in it. */
export interface HostGroup {
  host: string | null;
  /** What its collapsed state is remembered by. */
  key: string;
  groups: SessionGroup[];
  total: number;
  needing: number;
}

/**
 * The sessions by machine, then by folder (groupSessions): this machine first, then each host
 * by name, a known host even with no session (its link's state is shown); with the filter on,
 * only the machines with a session shown.
 */
export function groupByHost(sessions: SessionView[], needsFilter: boolean, activeId: string | null, hosts: string[]): HostGroup[] {
  const names = [...new Set([...hosts, ...sessions.map((s) => hostOf(s.id)).filter((h) => h !== null)])].sort();
  const list = [null, ...names].map((host): HostGroup => {
    const groups = groupSessions(
      sessions.filter((s) => hostOf(s.id) === host),
      needsFilter,
      activeId,
    );
    if (host !== null) for (const group of groups) group.key = `${host}:${group.folder}`;
    const total = groups.reduce((sum, g) => sum + g.total, 0);
    const needing = groups.reduce((sum, g) => sum + g.needing, 0);
    return { host, key: `host:${host ?? LOCAL_HOST}`, groups, total, needing };
  });
  return list.filter((h) => (needsFilter ? h.groups.length > 0 : h.host === null || h.total > 0 || hosts.includes(h.host)));
}

/** The keys that answer this session's question from the list, when its CLI has them and its screen or hook asks one. */
export function answersFor(session: SessionView, clis: CliView[]): { approve: string; deny: string } | null {
  const source = session.needsYou?.source;
  // A first-run, trust or sign-in screen's menu is not the approval prompt the keys answer.
  if ((source !== 'screen' && source !== 'hook') || session.needsYou?.setup) return null;
  return clis.find((c) => c.name === session.cli)?.answers ?? null;
}

/**
 * The order of every session after `dragged` is dropped before (or after) `target`, when both
 * are in the same group; null when the drop is refused (another group, or onto itself).
 */
export function dropOrder(sessions: SessionView[], groups: SessionGroup[], dragged: string, target: string, after: boolean): string[] | null {
  if (dragged === target) return null;
  const group = groups.find((g) => g.sessions.some((s) => s.id === target));
  if (!group || !group.sessions.some((s) => s.id === dragged)) return null;
  const ids = sessions.map((s) => s.id).filter((id) => id !== dragged);
  ids.splice(ids.indexOf(target) + (after ? 1 : 0), 0, dragged);
  return ids;
}

/**
 * What a drop does, in the sidebar or the tab strip: where the dragged session goes in the list
 * of every session, and the order its machine's daemon is told (its own sessions only); null when
 * the drop is refused (dropOrder).
 */
export function dropped(sessions: SessionView[], groups: SessionGroup[], dragged: string, target: string, after: boolean): { at: number; machine: string[] } | null {
  const order = dropOrder(sessions, groups, dragged, target, after);
  return order && { at: order.indexOf(dragged), machine: order.filter((key) => hostOf(key) === hostOf(dragged)) };
}

/** The last part of a folder's path; the last two where another folder ends the same. */
export function shortName(folder: string, folders: string[]): string {
  const last = (f: string, n: number) => f.split('/').filter(Boolean).slice(-n).join('/') || '/';
  const name = last(folder, 1);
  return folders.some((f) => f !== folder && last(f, 1) === name) ? last(folder, 2) : name;
}

function trimSlash(folder: string): string {
  return folder.length > 1 ? folder.replace(/\/+$/, '') : folder;
}

function isWithin(folder: string, ancestor: string): boolean {
  return folder === ancestor || folder.startsWith(ancestor === '/' ? '/' : `${ancestor}/`);
}
