import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { CliView, SessionView } from '../../daemon/contract/session';
import { errorOf } from '../lib/errors';
import { keyContext, withKeys, type Action } from '../lib/keys';
import { READ_ONLY_WORDS } from '../lib/words';
import { answersFor, dropOrder, dropped, groupByHost, type SessionGroup } from '../lib/sidebar';
import { downLink, downWords, hostOf } from '../lib/remote';
import { hostStateWords, LOCAL_HOST, type HostView } from '../../daemon/contract/hosts';
import { useHosts } from '../state/hosts';
import { badge, visible } from '../lib/words';
import { worktreeWords } from '../lib/changes';
import { useSessions } from '../state/sessions';
import { SIDEBAR_WIDTH, useUi } from '../state/ui';
import { HostsPanel } from './HostsPanel';
import { UsageBadge } from './UsageBadge';
import { WorktreeMark } from './WorktreeMark';
import { atPointer, SessionMenu } from './SessionMenu';
import { ArchiveButton, RenameField } from './SessionHandles';

/** The keys shown beside controls: where the page runs does not change while it runs. */
const shownKeys = keyContext();

interface Drag {
  id: string;
  /** The row it would be dropped beside, and on which side; null where it cannot go. */
  over: string | null;
  after: boolean;
}

/**
 * Every session that is not archived, grouped by folder: the name first, the agent's colour, its
 * state and, when it needs you, its question with Approve / Deny where its CLI answers with one
 * key. Arrow keys move in the list, Enter opens, `y` / `n` answer; right click for the session's
 * menu, double click to rename, drag to reorder within a folder.
 */
export function Sidebar({ api, onAction, onOpen }: { api: ClientApi; onAction(action: Action, id?: string): void; onOpen(id: string): void }) {
  const all = useSessions((s) => s.sessions);
  const clis = useSessions((s) => s.clis);
  const activeId = useSessions((s) => s.activeId);
  const needsFilter = useUi((s) => s.needsFilter);
  const collapsed = useUi((s) => s.collapsed);
  const readOnly = useUi((s) => s.readOnly);
  const linkDown = useUi((s) => s.linkDown);
  const width = useUi((s) => s.sidebarWidth);
  const hosts = useHosts((s) => s.hosts);
  const hostNames = useMemo(() => hosts.map((h) => h.name), [hosts]);
  const machines = useMemo(() => groupByHost(all, needsFilter, activeId, hostNames), [all, needsFilter, activeId, hostNames]);
  // With no remote host the folders are the top of the list, as before there were hosts.
  const byHost = machines.length > 1;
  const groups = useMemo(() => machines.flatMap((m) => m.groups), [machines]);
  const [menu, setMenu] = useState<{ id: string; x: number; y: number } | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [focused, setFocused] = useState<string | null>(null);
  const closeMenu = useCallback(() => setMenu(null), []);
  const menuSession = menu ? all.find((s) => s.id === menu.id && s.archivedAt === null) : undefined;

  // A group is shown shut when collapsed, except under the "needs you" filter: what needs you is
  // never hidden in a group collapsed before.
  const shut = (key: string) => !needsFilter && collapsed.has(key);
  // What arrow keys move through, in order: each header, then what it holds when it is open.
  const folderKeys = (g: SessionGroup) => [groupKey(g), ...(shut(g.key) ? [] : g.sessions.map((s) => rowKey(s.id)))];
  const navKeys = byHost ? machines.flatMap((m) => [m.key, ...(shut(m.key) ? [] : m.groups.flatMap(folderKeys))]) : groups.flatMap(folderKeys);
  const tabStop = [focused, activeId && rowKey(activeId)].find((key) => key && navKeys.includes(key)) ?? navKeys[0];
  // A session shown from elsewhere (its tab, a key, a notification) takes the list's Tab stop:
  // Ctrl+Shift+E and a one-key answer then act on the session on screen, not one the list had
  // the keyboard on before (a trial's `y` answered that one instead).
  useEffect(() => setFocused(null), [activeId]);

  // The session shown is always in sight: its group (and machine) opened if it was collapsed when
  // the session was chosen, and the list scrolled to it, with its group's header where there is room.
  useEffect(() => {
    if (!activeId) return;
    const machine = machines.find((m) => m.groups.some((g) => g.sessions.some((s) => s.id === activeId)));
    const group = machine?.groups.find((g) => g.sessions.some((s) => s.id === activeId));
    const { collapsed: shut, collapse } = useUi.getState();
    for (const key of [byHost ? machine?.key : undefined, group?.key]) if (key && shut.has(key)) collapse(key, false);
    // On a choice of session only, not on every change of the list: a group collapsed by hand afterwards stays so.
  }, [activeId]);
  useEffect(() => {
    if (!activeId) return;
    const row = document.querySelector(`[data-nav="${rowKey(activeId)}"]`);
    const group = groups.find((g) => g.sessions.some((s) => s.id === activeId));
    if (group) document.querySelector(`[data-nav="${groupKey(group)}"] > .group-head`)?.scrollIntoView({ block: 'nearest' });
    row?.scrollIntoView({ block: 'nearest' });
  }, [activeId, groups, collapsed]);

  /**
   * The row a click sequence began on (a double click's first click). A double click on an
   * answer may have its second click on a row, the buttons gone with the question: that is not
   * the row's double click, and not a rename.
   */
  const clickedFirst = useRef<string | null>(null);
  /** The question each session was last answered for (its needs-you `since`). */
  const answered = useRef(new Map<string, number | null>());
  /**
   * Answers a row's question with its CLI's key, and keeps the keyboard in the list: on the row,
   * or, under the "needs you" filter (where the answered row leaves the list unless it is the one
   * shown), on the next row that needs you, or the row beside it when none does.
   */
  const answer = (session: SessionView, which: 'approve' | 'deny', from: HTMLElement) => {
    const keys = answersFor(session, clis);
    if (!keys) return;
    // A click on an answer begins no row's double click.
    clickedFirst.current = null;
    // One answer a question: a second click (a double click) before the row has changed would
    // type the key again, into whatever the agent shows next.
    const asked = session.needsYou?.since ?? null;
    if (answered.current.get(session.id) !== asked) {
      const notTyped = (why: string) =>
        // The daemon's refusals of an answer say themselves that nothing was typed.
        useUi.getState().fail(null, /nothing was typed\)?$/.test(why) ? `${why[0]!.toUpperCase()}${why.slice(1)}.` : `Nothing was typed into “${visible(session.name)}”: ${why}`);
      if (useUi.getState().linkDown) return notTyped('Corral is not answering.');
      answered.current.set(session.id, asked);
      // Typed only while that question still waits: answered meanwhile in its terminal (the row
      // not yet told), the key would go to whatever the agent shows next.
      api.write({ id: session.id, text: keys[which], ...(asked !== null ? { ifAsking: asked } : {}) }).catch((err) => {
        answered.current.delete(session.id);
        const why = errorOf(err);
        // A host's Corral older than the check refuses it: the answer goes through its terminal.
        notTyped(why.code === 'bad_request' && why.field === 'ifAsking' ? `${hostOf(session.id) ?? 'its host'}'s Corral is too old to check that the question still waits: answer it in its terminal, or update Corral there.` : why.message);
      });
    }
    const items = [...(from.closest('[role="tree"]')?.querySelectorAll<HTMLElement>('[data-nav]') ?? [])];
    const at = items.indexOf(from);
    const needing = (item: HTMLElement) => all.some((s) => s.id !== session.id && s.needsYou !== null && rowKey(s.id) === item.dataset.nav);
    const next = !needsFilter || session.id === activeId ? from : (items.slice(at + 1).find(needing) ?? items.slice(0, Math.max(0, at)).find(needing) ?? items[at + 1] ?? items[at - 1]);
    if (!next) return;
    next.focus();
    setFocused(next.dataset.nav!);
  };
  // Under the "needs you" filter every group is shown open: a toggle there would change, unseen,
  // what is collapsed once the filter is off.
  const toggle = (group: { key: string }) => !needsFilter && useUi.getState().collapse(group.key, !collapsed.has(group.key));

  // What a row does, one object for every drawing (reading this drawing's state when it acts):
  // a row is drawn again only when what it shows changed, where every change of any session drew
  // every row (bench/README.md, figure 15).
  const latest = useRef({ all, groups, drag, answer, onAction, onOpen });
  latest.current = { all, groups, drag, answer, onAction, onOpen };
  const row = useMemo<RowActions>(
    () => ({
      open: (id, clicks) => {
        if (clicks <= 1) clickedFirst.current = id;
        setFocused(rowKey(id));
        latest.current.onOpen(id);
      },
      rename: (id) => clickedFirst.current === id && setRenaming(id),
      renamed: () => setRenaming(null),
      menu: (id, x, y) => {
        setFocused(rowKey(id));
        setMenu({ id, x, y });
      },
      archive: (id) => latest.current.onAction({ kind: 'archive' }, id),
      answer: (session, which, from) => latest.current.answer(session, which, from),
      dragStart: (id) => setDrag({ id, over: null, after: false }),
      dragOver: (id, after) => {
        const { all, groups, drag } = latest.current;
        if (!drag) return false;
        const allowed = dropOrder(all, groups, drag.id, id, after) !== null;
        const over = allowed ? id : null;
        if (drag.over !== over || drag.after !== after) setDrag({ ...drag, over, after });
        return allowed;
      },
      drop: (id) => {
        const { all, groups, drag } = latest.current;
        if (!drag) return;
        const done = dropped(all, groups, drag.id, id, drag.after);
        setDrag(null);
        if (!done) return;
        useSessions.getState().move(drag.id, done.at);
        api.reorderSessions({ ids: done.machine }).catch((err) => useUi.getState().fail(null, errorOf(err)));
      },
      dragEnd: () => setDrag(null),
    }),
    [api],
  );

  const onKey = (e: KeyboardEvent<HTMLUListElement>) => {
    if (renaming || e.ctrlKey || e.metaKey || e.altKey) return;
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-nav]')];
    const current = (e.target as HTMLElement).closest<HTMLElement>('[data-nav]');
    if (!current) return;
    const at = items.indexOf(current);
    const key = current.dataset.nav!;
    const group = groups.find((g) => groupKey(g) === key) ?? machines.find((m) => m.key === key);
    const session = group ? null : all.find((s) => rowKey(s.id) === key);
    const focusItem = (item: HTMLElement | undefined) => {
      if (!item) return;
      item.focus();
      setFocused(item.dataset.nav!);
    };
    switch (e.key) {
      case 'ArrowDown':
        focusItem(items[Math.min(at + 1, items.length - 1)]);
        break;
      case 'ArrowUp':
        focusItem(items[Math.max(at - 1, 0)]);
        break;
      case 'Home':
        focusItem(items[0]);
        break;
      case 'End':
        focusItem(items.at(-1));
        break;
      case 'ArrowLeft':
        if (group && !shut(group.key) && !needsFilter) toggle(group);
        else focusItem(current.parentElement?.closest<HTMLElement>('[data-nav]') ?? undefined);
        break;
      case 'ArrowRight':
        if (group && shut(group.key)) toggle(group);
        else if (group) focusItem(items[at + 1]);
        break;
      case 'Enter':
      case ' ':
        if (group) toggle(group);
        else if (session) onOpen(session.id);
        break;
      case 'y':
      case 'n':
        if (!session || readOnly || !answersFor(session, clis)) return;
        answer(session, e.key === 'y' ? 'approve' : 'deny', current);
        break;
      case 'ContextMenu': {
        if (!session) return;
        const box = current.getBoundingClientRect();
        setMenu({ id: session.id, x: box.left + 24, y: box.top + 24 });
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  };

  const folderGroup = (group: SessionGroup) => {
          const open = !shut(group.key);
          // Collapsed over the session shown: its head says which, so the selection is never out of sight.
          const shown = open ? undefined : group.sessions.find((s) => s.id === activeId);
          return (
            <li
              key={group.key}
              role="treeitem"
              aria-expanded={open}
              aria-label={`${visible(group.name)}: ${group.total} session${group.total === 1 ? '' : 's'}${group.needing ? `, ${group.needing} need${group.needing === 1 ? 's' : ''} you` : ''}${shown ? `, holds ${visible(shown.name)}, shown` : ''}`}
              className={shown ? 'side-group holds-shown' : 'side-group'}
              data-nav={groupKey(group)}
              data-folder={group.folder}
              tabIndex={tabStop === groupKey(group) ? 0 : -1}
            >
              <div className="group-head" title={visible(group.folder)} onClick={() => toggle(group)}>
                <span className="chevron" aria-hidden="true">
                  {open ? '▾' : '▸'}
                </span>
                <span className="group-name">{visible(group.name)}</span>
                {shown && <span className="group-shown">{visible(shown.name)}</span>}
                {group.needing > 0 && (
                  <span className="group-needing" title={`${group.needing} need${group.needing === 1 ? 's' : ''} you`}>
                    {group.needing}
                  </span>
                )}
                <span className="group-count" title={`${group.total} session${group.total === 1 ? '' : 's'}`}>
                  {group.total}
                </span>
              </div>
              {open && (
                <ul role="group">
                  {group.sessions.map((session) => (
                    <SidebarRow
                      key={session.id}
                      session={session}
                      cli={clis.find((c) => c.name === session.cli)}
                      answers={readOnly ? null : answersFor(session, clis)}
                      offline={linkDown}
                      down={downLink(session.id, hosts)}
                      selected={session.id === activeId}
                      tabStop={tabStop === rowKey(session.id)}
                      drop={drag?.over === session.id ? (drag.after ? 'after' : 'before') : null}
                      dragging={drag?.id === session.id}
                      renaming={renaming === session.id}
                      api={api}
                      row={row}
                    />
                  ))}
                </ul>
              )}
            </li>
          );
  };

  return (
    <nav className="sidebar" style={{ width }} aria-label="Sessions by folder">
      <div className="sidebar-head">
        <span className="sidebar-title">Sessions</span>
        <button type="button" className="sidebar-new" onClick={() => onAction({ kind: 'new-session' })} aria-label="Start a new session" title={readOnly ? READ_ONLY_WORDS : withKeys('New session', 'new', shownKeys)} disabled={readOnly}>
          +
        </button>
        <button type="button" className="sidebar-hide" onClick={() => useUi.getState().showSidebar(false)} aria-label={withKeys('Hide the sidebar', 'sidebar', shownKeys)} title={withKeys('Hide the sidebar', 'sidebar', shownKeys)}>
          «
        </button>
      </div>
      <ul role="tree" aria-label="Sessions" className="sidebar-tree" onKeyDown={onKey}>
        {groups.length === 0 && <li className="hint sidebar-note">{needsFilter ? 'No session needs you.' : 'Sessions you start are listed here, by folder.'}</li>}
        {byHost
          ? machines.map((machine) => {
              const open = !shut(machine.key);
              const link = hosts.find((h) => h.name === machine.host);
              const name = machine.host ?? 'this machine';
              return (
                <li
                  key={machine.key}
                  role="treeitem"
                  aria-expanded={open}
                  aria-label={`${name}${link ? `, ${hostStateWords(link)}` : ''}: ${machine.total} session${machine.total === 1 ? '' : 's'}${machine.needing ? `, ${machine.needing} need${machine.needing === 1 ? 's' : ''} you` : ''}`}
                  className="side-host"
                  data-nav={machine.key}
                  data-host={machine.host ?? LOCAL_HOST}
                  data-state={link?.state ?? 'connected'}
                  tabIndex={tabStop === machine.key ? 0 : -1}
                >
                  <div className="host-head" title={link ? `${link.target}: ${hostStateWords(link)}` : 'this machine'} onClick={() => toggle(machine)}>
                    <span className="chevron" aria-hidden="true">
                      {open ? '▾' : '▸'}
                    </span>
                    <span className={`host-dot ${link?.state ?? 'connected'}`} aria-hidden="true" />
                    <span className="group-name">{name}</span>
                    {link && link.state !== 'connected' && <span className="host-link">{downWords(link)}</span>}
                    {machine.needing > 0 && (
                      <span className="group-needing" title={`${machine.needing} need${machine.needing === 1 ? 's' : ''} you`}>
                        {machine.needing}
                      </span>
                    )}
                    <span className="group-count">{machine.total}</span>
                  </div>
                  {open && <ul role="group">{machine.groups.map(folderGroup)}</ul>}
                </li>
              );
            })
          : groups.map(folderGroup)}
      </ul>
      <HostsPanel api={api} />
      {menu && menuSession && <SessionMenu session={menuSession} onAction={onAction} onClose={closeMenu} style={atPointer(menu.x, menu.y)} />}
      <SidebarResizer width={width} />
    </nav>
  );
}

/** The one-key answers a row offers, as the CLI's own keys for yes and no (lib/sidebar answersFor). */
const ANSWERS = [
  { which: 'approve', label: 'Approve', key: 'y', means: 'yes' },
  { which: 'deny', label: 'Deny', key: 'n', means: 'no' },
] as const;

interface RowActions {
  /** `clicks`: the click's count in its sequence (the event's detail; 0 from the keyboard). */
  open(id: string, clicks: number): void;
  rename(id: string): void;
  renamed(): void;
  menu(id: string, x: number, y: number): void;
  archive(id: string): void;
  answer(session: SessionView, which: 'approve' | 'deny', from: HTMLElement): void;
  dragStart(id: string): void;
  /** Whether the dragged row may be dropped beside this one. */
  dragOver(id: string, after: boolean): boolean;
  drop(id: string): void;
  dragEnd(): void;
}

interface RowProps {
  session: SessionView;
  cli: CliView | undefined;
  answers: { approve: string; deny: string } | null;
  /** The daemon is not answering: the answers wait until it is back. */
  offline: boolean;
  down: HostView | null;
  selected: boolean;
  tabStop: boolean;
  drop: 'before' | 'after' | null;
  dragging: boolean;
  renaming: boolean;
  api: ClientApi;
  row: RowActions;
}

/** One session in the list; drawn again only when one of its props changed. */
const SidebarRow = memo(function SidebarRow({ session, cli, answers, offline, down, selected, tabStop, drop, dragging, renaming, api, row }: RowProps) {
  // A session of a host whose link is down is as last known: it says so in place of its state.
  const state = down ? { text: downWords(down), tone: 'busy' as const } : badge(session);
  const question = session.needsYou && session.needsYou.source !== 'exit' ? session.needsYou.detail : undefined;
  // What it asks about (the command, the file), as its screen shows it.
  const about = question ? session.needsYou!.about : undefined;
  return (
    <li
      role="treeitem"
      aria-selected={selected}
      aria-label={`${visible(session.name)}, ${cli?.label ?? session.cli}, ${state.text}${session.worktree ? `, ${worktreeWords(session.worktree)}` : ''}`}
      aria-describedby={question ? `question-${session.id}${about ? ` about-${session.id}` : ''}` : undefined}
      className={`side-row${drop ? ` drop-${drop}` : ''}${dragging ? ' dragging' : ''}`}
      data-nav={rowKey(session.id)}
      data-session={session.id}
      tabIndex={tabStop ? 0 : -1}
      title={`${visible(session.name)}\n${visible(session.cwd)}`}
      draggable={!renaming}
      onClick={(e) => row.open(session.id, e.detail)}
      onDoubleClick={() => row.rename(session.id)}
      onContextMenu={(e) => {
        e.preventDefault();
        row.menu(session.id, e.clientX, e.clientY);
      }}
      onDragStart={(e) => {
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', session.id);
        row.dragStart(session.id);
      }}
      onDragOver={(e) => {
        const box = e.currentTarget.getBoundingClientRect();
        if (row.dragOver(session.id, e.clientY > box.top + box.height / 2)) e.preventDefault();
      }}
      onDrop={(e) => {
        e.preventDefault();
        row.drop(session.id);
      }}
      onDragEnd={() => row.dragEnd()}
    >
      <div className="side-line">
        <span className="cli-dot" style={{ background: cli?.color ?? '#8b8b8b' }} title={cli?.label ?? session.cli} aria-hidden="true" />
        {renaming ? <RenameField api={api} session={session} onDone={row.renamed} className="side-rename" /> : <span className="side-name">{visible(session.name)}</span>}
        {session.usage && <UsageBadge usage={session.usage} />}
        <span className={`side-state state-${state.tone}`} data-state={session.state} data-activity={session.activity ?? undefined} title={state.text}>
          {state.text.startsWith('exited') ? 'exited' : state.text}
        </span>
        <ArchiveButton name={session.name} className="side-close" where="list" onArchive={() => row.archive(session.id)} />
      </div>
      {session.worktree && (
        <div className="side-worktree">
          <WorktreeMark worktree={session.worktree} className="worktree-mark" />
        </div>
      )}
      {question && (
        <div className="side-question" id={`question-${session.id}`} title={visible(question)}>
          {visible(question)}
        </div>
      )}
      {about && (
        <div className="side-about" id={`about-${session.id}`} title={visible(about)}>
          {visible(about)}
        </div>
      )}
      {answers && (
        <div className="side-answers">
          {ANSWERS.map(({ which, label, key, means }) => (
            <button
              key={which}
              type="button"
              tabIndex={-1}
              className={which}
              disabled={offline}
              title={offline ? 'Corral is not answering: nothing can be typed until it is back' : `${label}: types its CLI's own key for ${means} (${key} while the row has focus)`}
              onClick={(e) => {
                e.stopPropagation();
                const from = e.currentTarget.closest<HTMLElement>('[data-nav]');
                if (from) row.answer(session, which, from);
              }}
              // A double click answers once (see answer), and is not the row's (a rename).
              onDoubleClick={(e) => e.stopPropagation()}
            >
              {label} <kbd>{key}</kbd>
            </button>
          ))}
        </div>
      )}
    </li>
  );
});

const groupKey = (group: SessionGroup) => `group:${group.key}`;
const rowKey = (id: string) => `session:${id}`;

/** The sidebar's right edge: drag it (or arrow keys on it) to resize; a double click puts it back. */
function SidebarResizer({ width }: { width: number }) {
  const start = useRef<{ x: number; width: number } | null>(null);
  const resize = (to: number) => useUi.getState().resizeSidebar(to);
  return (
    <div
      className="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the sidebar"
      aria-valuenow={width}
      aria-valuemin={SIDEBAR_WIDTH.min}
      aria-valuemax={SIDEBAR_WIDTH.max}
      tabIndex={0}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        start.current = { x: e.clientX, width };
      }}
      onPointerMove={(e) => start.current && resize(start.current.width + e.clientX - start.current.x)}
      onPointerUp={() => (start.current = null)}
      onDoubleClick={() => resize(SIDEBAR_WIDTH.default)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') resize(width + (e.key === 'ArrowRight' ? 16 : -16));
      }}
    />
  );
}
