import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { keyContext, keyLabel, withKeys, type Action } from '../lib/keys';
import { badge, READ_ONLY_WORDS, runningFor, visible } from '../lib/words';
import { tabSessions, useSessions } from '../state/sessions';
import { useHosts } from '../state/hosts';
import { downLink, downWords } from '../lib/remote';
import { dropOrder, dropped, groupByHost } from '../lib/sidebar';
import { useUi } from '../state/ui';
import type { ClientApi } from '../../daemon/contract/contract';
import { isRunning, type CliView, type SessionView } from '../../daemon/contract/session';
import type { HostView } from '../../daemon/contract/hosts';
import { atPointer, SessionMenu } from './SessionMenu';
import { ArchiveButton, RenameField } from './SessionHandles';
import { errorOf } from '../lib/errors';
import { UsageBadge } from './UsageBadge';
import { WorktreeMark } from './WorktreeMark';
import { worktreeWords } from '../lib/changes';

/** The keys shown beside controls: where the page runs does not change while it runs. */
const shownKeys = keyContext();

/** Redraws every `ms` (for running times). */
function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * Every session as a tab: the CLI's colour and label, the name, the state or activity, the
 * folder's git branch (● when it has uncommitted changes) and how long it has run. The sidebar
 * rows' handles: × archives, a right click opens the session's menu, a double click renames in
 * place, and a drag reorders, a mark showing where it lands. Archived sessions are not here; the
 * palette restores them.
 */
export function SessionTabs({ api, onAction }: { api: ClientApi; onAction(action: Action, id?: string): void }) {
  const all = useSessions((s) => s.sessions);
  const clis = useSessions((s) => s.clis);
  const activeId = useSessions((s) => s.activeId);
  const hosts = useHosts((s) => s.hosts);
  const needsFilter = useUi((s) => s.needsFilter);
  const sidebarShown = useUi((s) => s.sidebarShown);
  const readOnly = useUi((s) => s.readOnly);
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const [menuOpen, setMenuOpen] = useState(false);
  // A tab's own menu (a right click), which may be another tab's than the one shown.
  const [tabMenu, setTabMenu] = useState<{ id: string; x: number; y: number } | null>(null);
  const closeTabMenu = useCallback(() => setTabMenu(null), []);
  const menuSession = tabMenu ? all.find((s) => s.id === tabMenu.id && s.archivedAt === null) : undefined;
  const [renaming, setRenaming] = useState<string | null>(null);
  const [dragging, setDragging] = useState<{ id: string; over: string | null; after: boolean } | null>(null);
  // What a tab does, the same object for every drawing (reading this drawing's state when it
  // acts): a tab is drawn again only when what it shows changed (with 60 sessions, every change
  // drew every tab).
  // The sidebar's groups: a tab moves among its folder's, as a row there does (the strip is in their order).
  const groups = useMemo(() => groupByHost(all, needsFilter, activeId, []).flatMap((machine) => machine.groups), [all, needsFilter, activeId]);
  const latest = useRef({ dragging, onAction, all, groups });
  latest.current = { dragging, onAction, all, groups };
  const tab = useMemo<TabActions>(
    () => ({
      menu: (id, x, y) => setTabMenu({ id, x, y }),
      rename: (id) => setRenaming(id),
      renamed: () => setRenaming(null),
      archive: (id) => latest.current.onAction({ kind: 'archive' }, id),
      dragStart: (id) => setDragging({ id, over: null, after: false }),
      dragOver: (id, after) => {
        const { dragging, all, groups } = latest.current;
        if (!dragging) return false;
        const over = dropOrder(all, groups, dragging.id, id, after) === null ? null : id;
        if (dragging.over !== over || dragging.after !== after) setDragging({ ...dragging, over, after });
        return over !== null;
      },
      drop: (id, after) => {
        const { dragging, all, groups } = latest.current;
        setDragging(null);
        const done = dragging && dropped(all, groups, dragging.id, id, after);
        if (!dragging || !done) return;
        useSessions.getState().move(dragging.id, done.at);
        api.reorderSessions({ ids: done.machine }).catch((err) => useUi.getState().fail(null, errorOf(err)));
      },
      dragEnd: () => setDragging(null),
      dragOut: () => {
        const { dragging } = latest.current;
        if (dragging?.over) setDragging({ ...dragging, over: null });
      },
    }),
    [api],
  );
  const now = useNow(15_000);
  const sessions = tabSessions(all, needsFilter, activeId);
  const active = sessions.find((s) => s.id === activeId);
  const needing = all.filter((s) => s.archivedAt === null && s.needsYou !== null).length;
  // The window's title says it too, for a browser tab or a taskbar.
  useEffect(() => {
    document.title = needing > 0 ? `(${needing}) Corral` : 'Corral';
  }, [needing]);
  // The active tab is always in view, however it became active (a shortcut, a link, the palette),
  // and stays so as the tabs around it change width (the tab left loses its ×, a badge comes or
  // goes), until the person scrolls the strip by hand. Widths are watched (a ResizeObserver on
  // each tab, told after layout), never read at each drawing: with 60 busy sessions the strip is
  // drawn many times a second, and a read there would force a layout each time.
  // Nor while a press is down on the strip: a tab moved between the press and the release
  // takes no click (a press on another tab, as a badge changed width, was lost so), and a press
  // that dragged the strip's scrollbar leaves the active tab where the person put it.
  const kept = useRef(true);
  const pressed = useRef(false);
  const stripRef = useRef<HTMLDivElement>(null);
  const activeOutOfView = useCallback(() => {
    const { activeId } = useSessions.getState();
    const tab = activeId ? document.getElementById(`tab-${activeId}`) : null;
    const strip = stripRef.current;
    if (!tab || !strip) return null;
    const [at, view] = [tab.getBoundingClientRect(), strip.getBoundingClientRect()];
    return at.left < view.left - 0.5 || at.right > view.right + 0.5 ? tab : null;
  }, []);
  const keepActiveInView = useCallback(() => {
    if (kept.current && !pressed.current) activeOutOfView()?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [activeOutOfView]);
  useEffect(() => {
    const released = () => {
      if (!pressed.current) return;
      pressed.current = false;
      // The strip scrolled by its scrollbar: left there (a click on a tab shows it, and in view).
      if (activeOutOfView()) kept.current = false;
    };
    window.addEventListener('pointerup', released, true);
    window.addEventListener('pointercancel', released, true);
    return () => {
      window.removeEventListener('pointerup', released, true);
      window.removeEventListener('pointercancel', released, true);
    };
  }, [activeOutOfView]);
  useEffect(() => {
    kept.current = true;
    if (activeId) document.getElementById(`tab-${activeId}`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [activeId, sessions.length]);
  const tabIds = sessions.map((session) => session.id).join(' ');
  useEffect(() => {
    const strip = stripRef.current;
    if (!strip || typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(keepActiveInView);
    watch.observe(strip);
    for (const tab of strip.querySelectorAll('[role="tab"]')) watch.observe(tab);
    return () => watch.disconnect();
  }, [tabIds, keepActiveInView]);

  return (
    <header className="tabbar">
      {!sidebarShown && (
        <button type="button" className="sidebar-toggle" onClick={() => useUi.getState().showSidebar(true)} aria-label={withKeys('Show the sidebar', 'sidebar', shownKeys)} title={withKeys('Show the sidebar', 'sidebar', shownKeys)}>
          ☰
        </button>
      )}
      <button
        type="button"
        className={needing > 0 ? 'needs-filter has-needs' : 'needs-filter'}
        aria-pressed={needsFilter}
        onClick={() => useUi.getState().setNeedsFilter(!needsFilter)}
        title={`Show only the sessions that need you (${keyLabel('next-needing', shownKeys)} jumps to the next one)`}
      >
        Needs you · {needing}
      </button>
      <div
        role="tablist"
        aria-label="Sessions"
        className="tabs"
        ref={stripRef}
        onPointerDown={() => (pressed.current = true)}
        // A mouse wheel scrolls the strip sideways.
        onWheel={(e) => {
          kept.current = false;
          if (Math.abs(e.deltaY) > Math.abs(e.deltaX)) e.currentTarget.scrollLeft += e.deltaY;
        }}
        // A drag that leaves the strip lands nowhere: no mark stays.
        onDragLeave={(e) => !e.currentTarget.contains(e.relatedTarget as Node | null) && tab.dragOut()}
        // One stop for Tab (the shown tab's); arrows, Home and End move among the tabs, Enter shows one.
        onKeyDown={(e) => {
          const tabs = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
          const at = tabs.indexOf(e.target as HTMLElement);
          if (at < 0 || e.ctrlKey || e.metaKey || e.altKey) return;
          const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
          if (to === undefined) return;
          e.preventDefault();
          // The strip follows the focus among the tabs, not back to the one shown.
          kept.current = false;
          tabs[(to + tabs.length) % tabs.length]?.focus();
        }}
      >
        {needsFilter && sessions.length === 0 && <span className="hint tabs-note">No session needs you.</span>}
        {sessions.map((session, index) => (
          <SessionTab
            key={session.id}
            session={session}
            index={index}
            cli={clis.find((c) => c.name === session.cli)}
            down={downLink(session.id, hosts)}
            active={session.id === activeId}
            tabStop={session.id === (sessions.some((x) => x.id === activeId) ? activeId : sessions[0]?.id)}
            // The words, not the clock: a tab is drawn again when its time reads differently.
            time={isRunning(session.state) && session.startedAt !== null ? runningFor(now - session.startedAt) : null}
            drop={dragging?.over === session.id ? (dragging.after ? 'after' : 'before') : null}
            renaming={renaming === session.id}
            api={api}
            tab={tab}
          />
        ))}
      </div>
      {readOnly && (
        <span className="read-only-badge" role="status" title={READ_ONLY_WORDS}>
          read-only
        </span>
      )}
      <button type="button" className="new-tab" onClick={() => onAction({ kind: 'new-session' })} aria-label={withKeys('New session', 'new', shownKeys)} title={readOnly ? READ_ONLY_WORDS : withKeys('New session', 'new', shownKeys)} disabled={readOnly}>
        +
      </button>
      <button type="button" className="palette-button" onClick={() => onAction({ kind: 'palette' })} aria-label={withKeys('Command palette', 'palette', shownKeys)} title={withKeys('Find a session or an action', 'palette', shownKeys)}>
        Find
      </button>
      <button type="button" className="usage-button" onClick={() => useUi.getState().open({ kind: 'usage' })} aria-label="Usage" title="What each session costs">
        $
      </button>
      <button type="button" className="settings-button" onClick={() => useUi.getState().open({ kind: 'settings' })} aria-label="Settings" title="Theme, terminal font and size">
        ⚙
      </button>
      {active && (
        <div className="menu">
          <button ref={menuButton} type="button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)} aria-label={`Actions for ${active.name}`}>
            ⋯
          </button>
          {menuOpen && <SessionMenu session={active} onAction={onAction} onClose={closeMenu} opener={menuButton.current} />}
        </div>
      )}
      {tabMenu && menuSession && <SessionMenu session={menuSession} onAction={onAction} onClose={closeTabMenu} style={atPointer(tabMenu.x, tabMenu.y)} />}
    </header>
  );
}

interface TabActions {
  menu(id: string, x: number, y: number): void;
  rename(id: string): void;
  renamed(): void;
  archive(id: string): void;
  dragStart(id: string): void;
  /** Whether the dragged tab may be dropped beside this one. */
  dragOver(id: string, after: boolean): boolean;
  drop(id: string, after: boolean): void;
  dragEnd(): void;
  /** The drag left the strip. */
  dragOut(): void;
}

interface TabProps {
  session: SessionView;
  index: number;
  cli: CliView | undefined;
  down: HostView | null;
  active: boolean;
  /** The tab Tab stops at: the shown one, else the first. */
  tabStop: boolean;
  time: string | null;
  drop: 'before' | 'after' | null;
  renaming: boolean;
  api: ClientApi;
  tab: TabActions;
}

const SessionTab = memo(function SessionTab({ session, index, cli, down, active, tabStop, time, drop, renaming, api, tab }: TabProps) {
  const state = down ? { text: downWords(down), tone: 'busy' as const } : badge(session);
  // A worktree's mark says the branch itself, with more than the folder's git would.
  const git = session.git && !session.worktree ? `${visible(session.git.branch)}${session.git.dirty ? ' ●' : ''}` : null;
  return (
    <div
      role="tab"
      tabIndex={tabStop ? 0 : -1}
      id={`tab-${session.id}`}
      aria-selected={active}
      aria-label={`${visible(session.name)}, ${cli?.label ?? session.cli}, ${state.text}${git ? `, on ${visible(session.git!.branch)}${session.git!.dirty ? ' with uncommitted changes' : ''}` : ''}${session.worktree ? `, ${worktreeWords(session.worktree)}` : ''}`}
      className={`tab${drop ? ` drop-${drop}` : ''}`}
      data-session={session.id}
      draggable={!renaming}
      onClick={() => useSessions.getState().activate(session.id)}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget || (e.key !== 'Enter' && e.key !== ' ')) return;
        e.preventDefault();
        useSessions.getState().activate(session.id);
      }}
      onDoubleClick={() => tab.rename(session.id)}
      onContextMenu={(e) => {
        e.preventDefault();
        tab.menu(session.id, e.clientX, e.clientY);
      }}
      onDragStart={(e) => {
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', session.id);
        tab.dragStart(session.id);
      }}
      onDragOver={(e) => {
        if (tab.dragOver(session.id, pastHalf(e))) e.preventDefault();
      }}
      onDrop={(e) => {
        e.preventDefault();
        tab.drop(session.id, pastHalf(e));
      }}
      onDragEnd={() => tab.dragEnd()}
      title={`${visible(session.cwd)}${index < 9 && keyLabel(`switch-${index + 1}`, shownKeys) ? ` — ${keyLabel(`switch-${index + 1}`, shownKeys)}` : ''}`}
    >
      <span className="cli-dot" style={{ background: cli?.color ?? '#8b8b8b' }} aria-hidden="true" />
      <span className="cli-label">{cli?.label ?? session.cli}</span>
      {renaming ? <RenameField api={api} session={session} onDone={tab.renamed} className="tab-rename" /> : <span className="tab-name">{visible(session.name)}</span>}
      <span className={`state state-${state.tone}`} data-state={session.state} data-activity={session.activity ?? undefined}>
        {state.text}
      </span>
      {git && (
        <span className="tab-git" title={session.git!.dirty ? 'uncommitted changes' : 'no uncommitted changes'}>
          ⎇ {git}
        </span>
      )}
      {session.worktree && <WorktreeMark worktree={session.worktree} className="tab-git" />}
      {session.usage && <UsageBadge usage={session.usage} />}
      {time !== null && (
        <span className="tab-time" title="running for">
          {time}
        </span>
      )}
      <ArchiveButton name={session.name} className="tab-close" where="strip" onArchive={() => tab.archive(session.id)} />
    </div>
  );
});

/** Whether a drag is over the right half of the tab under it: it lands after that tab. */
function pastHalf(e: { clientX: number; currentTarget: Element }): boolean {
  const box = e.currentTarget.getBoundingClientRect();
  return e.clientX > box.left + box.width / 2;
}
