import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isRunning, type SessionChange, type SessionEvent, type SessionView } from '../../daemon/contract/session';
import { errorOf } from '../lib/errors';
import { isMac, shortcut, type Action } from '../lib/keys';
import { sessionLink } from '../lib/sessionLink';
import { useShallow } from 'zustand/react/shallow';
import { NoticeBoard } from '../../daemon/contract/notifications';
import type { PaletteCommand } from '../lib/palette';
import { activateWhenListed, besideTab, syncHostSessions, syncSessions, tabSessions, useSessions } from '../state/sessions';
import { syncHosts, useHosts } from '../state/hosts';
import { downLink, downWords, hostOf, onHost, routedClient } from '../lib/remote';
import { fontStack, useUi } from '../state/ui';
import { isDark } from '../lib/pageTheme';
import { TerminalRegistry } from '../terminal/terminalHost';
import { internalsUsed } from '../terminal/xtermInternals';
import type { ClientApi } from '../../daemon/contract/contract';
import { clock, READ_ONLY_WORDS, visible } from '../lib/words';
import { Dialogs } from './Dialogs';
import { NewSessionDialog } from './NewSessionDialog';
import { Palette } from './Palette';
import { PreviewPane } from './PreviewPane';
import { ResumeBanner } from './ResumeBanner';
import { SearchBar } from './SearchBar';
import { SessionTabs } from './SessionTabs';
import { Sidebar } from './Sidebar';
import { StoppedSessionView } from './StoppedSessionView';

// The changes view brings the diff library: loaded when first opened.
const ChangesView = lazy(() => import('./ChangesView').then((m) => ({ default: m.ChangesView })));

/** `hostClient` makes a remote host's client: through this daemon's proxy in a browser, the preload's in the desktop app. */
export function Workspace({ api: local, hostClient, readOnly = false }: { api: ClientApi; hostClient: (host: string) => ClientApi; readOnly?: boolean }) {
  useEffect(() => useUi.setState({ readOnly }), [readOnly]);
  const clientOf = useMemo(() => {
    const made = new Map<string, ClientApi>();
    return (host: string) => {
      let client = made.get(host);
      if (!client) made.set(host, (client = hostClient(host)));
      return client;
    };
  }, [hostClient]);
  const api = useMemo(() => routedClient(local, clientOf), [local, clientOf]);
  const clientOn = useCallback((host: string | null) => onHost(local, clientOf, host), [local, clientOf]);
  const hosts = useHosts((s) => s.hosts);
  const sessions = useSessions((s) => s.sessions);
  const clis = useSessions((s) => s.clis);
  const activeId = useSessions((s) => s.activeId);
  const unfocused = useSessions((s) => s.unfocused);
  const wentAway = useSessions((s) => s.wentAway);
  const loaded = useSessions((s) => s.loaded);
  const dialog = useUi((s) => s.dialog);
  const error = useUi((s) => s.error);
  const searchOpen = useUi((s) => s.searchOpen);
  const paletteOpen = useUi((s) => s.paletteOpen);
  const preview = useUi((s) => s.preview);
  const changesFor = useUi((s) => s.changesFor);
  const sidebarShown = useUi((s) => s.sidebarShown);
  const paneRef = useRef<HTMLDivElement>(null);
  const [registry, setRegistry] = useState<TerminalRegistry | null>(null);
  const [events, setEvents] = useState<Record<string, SessionEvent[]>>({});
  const active = sessions.find((s) => s.id === activeId) ?? null;
  const mac = useMemo(isMac, []);
  // The link to the daemon, where the page watches it (a browser): while it is down a line says
  // so, the list and terminals stay as they were, and no key typed reaches an agent.
  const [downSince, setDownSince] = useState<number | null>(null);
  useEffect(
    () =>
      api.onLink?.((state) => {
        setDownSince(state === 'down' ? Date.now() : null);
        useUi.setState({ linkDown: state === 'down' });
      }),
    [api],
  );

  useEffect(() => syncSessions(api), [api]);
  useEffect(() => syncHosts(api), [api]);
  // Each connected host's sessions, keyed by host; a host whose link drops keeps its last known.
  const connected = hosts.filter((h) => h.state === 'connected').map((h) => h.name).join(' ');
  // An error that said a host's link was down goes once the link is back.
  useEffect(() => {
    const { error } = useUi.getState();
    const host = error?.sessionId ? hostOf(error.sessionId) : null;
    if (host !== null && connected.split(' ').includes(host) && error!.code === 'host_unreachable') useUi.getState().fail(null, null);
  }, [connected]);
  useEffect(() => {
    if (!connected) return;
    const stops = connected.split(' ').map((host) => syncHostSessions(host, clientOf(host)));
    return () => stops.forEach((stop) => stop());
  }, [clientOf, connected]);
  // A host removed takes its sessions out of the list (they keep running there).
  const known = hosts.map((h) => h.name).join(' ');
  useEffect(() => {
    const names = new Set(known.split(' '));
    const { sessions: every, replace } = useSessions.getState();
    for (const host of new Set(every.map((s) => hostOf(s.id)))) if (host !== null && !names.has(host)) replace([], host);
  }, [known]);
  // In a browser, the page tells of sessions that need you (the desktop app does it itself).
  const browserNotices = !api.onAppRequest && typeof Notification !== 'undefined';
  const [notificationsAllowed, setNotificationsAllowed] = useState(() => browserNotices && Notification.permission);
  useEffect(() => {
    if (!browserNotices) return;
    const board = new NoticeBoard();
    const show = (change: SessionChange, host: string | null = null) => {
      const notice = board.notice(change, host);
      if (!notice || Notification.permission !== 'granted') return;
      const looking = document.visibilityState === 'visible' && document.hasFocus() && useSessions.getState().activeId === notice.sessionId;
      if (looking) return;
      const note = new Notification(notice.title, { body: notice.body, tag: `corral-${notice.sessionId}` });
      note.onclick = () => {
        window.focus();
        useSessions.getState().activate(notice.sessionId);
        note.close();
      };
    };
    // This machine's sessions and every connected host's (keyed, so a click opens the right tab).
    const hostNames = connected ? connected.split(' ') : [];
    const stops = [api.onSessionChange(show), ...hostNames.map((host) => clientOf(host).onSessionChange((change) => show(change, host)))];
    return () => stops.forEach((stop) => stop());
  }, [api, browserNotices, clientOf, connected]);
  // The desktop shell asks for a tab (a link, the tray, a notification) or a new session; a
  // tab asked for after one still waited for is the one that opens.
  useEffect(() => {
    let waiting = () => {};
    const off = api.onAppRequest?.((request) => {
      waiting();
      if (request.kind === 'focus-session') waiting = activateWhenListed(request.id);
      else useUi.getState().open({ kind: 'new-session' });
    });
    return () => {
      waiting();
      off?.();
    };
  }, [api]);

  useEffect(() => {
    if (!paneRef.current) return;
    const made = new TerminalRegistry(
      api,
      {
        fontSize: useUi.getState().fontSize,
        fontFamily: fontStack(useUi.getState().fontFamily),
        dark: isDark(useUi.getState().theme),
        isAppShortcut: (e) => shortcut(e, mac) !== null,
        onPath: (sessionId, path) => useUi.getState().openPreview({ sessionId, path }),
        // A tab that only reads types nothing (the daemon would drop it): said by its badge.
        canType: () => !useUi.getState().linkDown && !useUi.getState().readOnly,
      },
      paneRef.current,
    );
    setRegistry(made);
    // Read-only inspection of the terminals, for end-to-end tests (as VS Code's smoke tests do).
    (window as unknown as { corralTerminals?: unknown }).corralTerminals = {
      text: (id: string) => made.text(id),
      screen: (id: string) => made.screen(id),
      scrolledBack: (id: string) => made.scrolledBack(id),
      size: (id: string) => made.size(id),
      written: (id: string) => made.written(id),
      cellOf: (id: string, text: string) => made.cellOf(id, text),
      internals: () => ({ ...internalsUsed }),
      state: (id: string) => made.state(id),
    };
    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    const onScheme = () => made.setDark(isDark(useUi.getState().theme));
    scheme?.addEventListener('change', onScheme);
    return () => {
      scheme?.removeEventListener('change', onScheme);
      made.dispose();
    };
  }, [api, mac]);

  // The settings: the terminals' theme and font (the page's colours follow in lib/pageTheme).
  const theme = useUi((s) => s.theme);
  const fontFamily = useUi((s) => s.fontFamily);
  const fontSize = useUi((s) => s.fontSize);
  useEffect(() => {
    registry?.setDark(isDark(theme));
  }, [registry, theme]);
  useEffect(() => {
    registry?.setFontFamily(fontStack(fontFamily));
    registry?.setFontSize(fontSize);
  }, [registry, fontFamily, fontSize]);

  // Only running sessions keep terminals, and only the shown one and a few before it (see
  // TerminalRegistry.use); those connect while their sessions are up (again after a restart).
  useEffect(() => {
    if (!registry) return;
    registry.prune(new Set(sessions.filter((s) => isRunning(s.state)).map((s) => s.id)));
    for (const host of registry.all()) host.reconnect();
  }, [registry, sessions]);

  // A running session chosen: its terminal connects as it is chosen, before the page is drawn again.
  useEffect(() => {
    if (!registry) return;
    return useSessions.subscribe((state, before) => {
      if (!state.activeId || state.activeId === before.activeId) return;
      const session = state.sessions.find((s) => s.id === state.activeId);
      if (session && isRunning(session.state)) registry.prepare(session.id);
    });
  }, [registry]);

  // A running session about to be shown connects its terminal first: pointed at (the pointer
  // resting on its tab or row), pressed there, before the click that shows it (a person's click is
  // held down a tenth of a second or so, most of a switch's wait for the daemon's first frame),
  // focused there from the keyboard, or highlighted in the palette, before Enter. One not shown
  // after all is one terminal more, until another is prepared or a switch lets it go.
  const warm = useCallback(
    (id: string) => {
      const session = useSessions.getState().sessions.find((s) => s.id === id);
      if (registry && session && isRunning(session.state)) registry.prepare(session.id);
    },
    [registry],
  );
  const warmMatch = useCallback((command: PaletteCommand) => command.kind === 'go' && warm(command.id), [warm]);
  useEffect(() => {
    const sessionAt = (target: EventTarget | null) =>
      target instanceof Element && !target.closest('button, input') ? target.closest<HTMLElement>('.side-row[data-session], [role="tab"][data-session]')?.dataset.session : undefined;
    const press = (e: PointerEvent) => {
      const id = e.button === 0 ? sessionAt(e.target) : undefined;
      if (id !== undefined) warm(id);
    };
    // The pointer resting on a row (still for POINTER_REST_MS, give or take a pixel or two) is
    // aimed there; one passing over rows on its way elsewhere rests on none of them.
    const rest = restTimer(warm);
    let from = { x: 0, y: 0 };
    const move = (e: PointerEvent) => {
      if (e.pointerType !== 'mouse' && e.pointerType !== 'pen') return;
      const id = sessionAt(e.target);
      if (id === rest.id && Math.abs(e.clientX - from.x) + Math.abs(e.clientY - from.y) < 3) return;
      from = { x: e.clientX, y: e.clientY };
      rest.restart(id, POINTER_REST_MS);
    };
    const focus = (e: FocusEvent) => rest.restart(sessionAt(e.target), FOCUS_REST_MS);
    document.addEventListener('pointerdown', press, true);
    document.addEventListener('pointermove', move, { capture: true, passive: true });
    document.addEventListener('focusin', focus, true);
    return () => {
      rest.restart(undefined, 0);
      document.removeEventListener('pointerdown', press, true);
      document.removeEventListener('pointermove', move, true);
      document.removeEventListener('focusin', focus, true);
    };
  }, [warm]);

  // The active terminal is shown (fitted first), the others hidden.
  const activeLive = !!active && isRunning(active.state);
  useEffect(() => {
    if (!registry || !paneRef.current) return;
    for (const host of registry.all()) if (host.id !== activeId) host.hide(registry.pane);
    if (activeId && activeLive) {
      const host = registry.use(activeId);
      host.show(registry.pane, registry.paneSize);
      // Focus stays where the person is working elsewhere (the sidebar's list, a rename, a menu).
      const elsewhere = document.activeElement?.closest('.sidebar, [role="menu"], .tab-rename');
      // A tab shown because the one shown went away waits for the person to pick it: typing
      // meant for the one gone must not reach this agent.
      if (!dialog && !paletteOpen && !elsewhere && unfocused !== activeId) host.focus();
    }
  }, [registry, activeId, activeLive, dialog, paletteOpen, unfocused]);

  // The shown session went away (removed, archived) and the keyboard with it (its terminal, its
  // dialog, its row gone): it goes to the bar that says so. Not to its button, nor to anything
  // that takes typing: what was being typed for the session gone reaches no other (Enter there
  // would pick the one shown), and Tab goes on from the bar.
  const wentAwayBar = useRef<HTMLDivElement>(null);
  const wentAwayShown = !!wentAway && unfocused === activeId;
  useEffect(() => {
    if (!wentAwayShown || dialog) return;
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (lost) wentAwayBar.current?.focus();
  }, [wentAwayShown, dialog]);

  // A search is the shown terminal's: another tab shown closes it.
  useEffect(() => useUi.getState().setSearch(false), [activeId]);

  // The tabs beside the shown one connect ahead, once it is drawn (TerminalRegistry.expect): the
  // keys for the next and the previous tab then show a live terminal, as a switch among the last
  // shown does.
  const needsFilter = useUi((s) => s.needsFilter);
  const beside = useSessions(useShallow((s) => besideTab(tabSessions(s.sessions, needsFilter, s.activeId), s.activeId)));
  useEffect(() => registry?.expect(beside), [registry, beside]);

  // Fit on every layout change.
  useEffect(() => {
    if (!registry || !paneRef.current) return;
    const observer = new ResizeObserver((entries) => {
      const { width, height } = entries[entries.length - 1]!.contentRect;
      registry.resized(width, height);
    });
    observer.observe(paneRef.current);
    return () => observer.disconnect();
  }, [registry]);

  // Events of the active session (for the banner and the stopped view), kept fresh.
  const refreshEvents = useCallback(
    (id: string) => void api.events({ id }).then(({ events: list }) => setEvents((all) => ({ ...all, [id]: list })), () => {}),
    [api],
  );
  useEffect(() => {
    if (activeId) refreshEvents(activeId);
  }, [activeId, active?.state, active?.resumable, refreshEvents]);
  useEffect(() => api.onSessionChange((change) => change.event && change.session.id === useSessions.getState().activeId && refreshEvents(change.session.id)), [api, refreshEvents]);

  const run = useCallback(
    async (session: SessionView | null, work: () => Promise<unknown>) => {
      useUi.getState().fail(null, null);
      try {
        await work();
      } catch (err) {
        useUi.getState().fail(session?.id ?? null, errorOf(err));
      }
    },
    [],
  );

  // An action on the active session, or on the one given (a menu acts on the session it was opened from).
  const act = useCallback(
    (action: Action, id?: string) => {
      const { sessions: every, activeId: current, activate } = useSessions.getState();
      const ui = useUi.getState();
      const list = tabSessions(every, ui.needsFilter, current);
      const session = id ? (every.find((s) => s.id === id) ?? null) : (list.find((s) => s.id === current) ?? null);
      const host = session && registry?.has(session.id) ? registry.get(session.id) : null;
      switch (action.kind) {
        case 'palette':
          return ui.setPalette(!ui.paletteOpen);
        case 'new-session':
          return ui.readOnly ? ui.fail(null, READ_ONLY_WORDS) : ui.open({ kind: 'new-session' });
        case 'switch-to':
          if (list[action.index]) activate(list[action.index]!.id);
          return;
        case 'next-tab':
        case 'previous-tab': {
          if (list.length === 0) return;
          const index = list.findIndex((s) => s.id === current);
          const step = action.kind === 'next-tab' ? 1 : -1;
          activate(list[(index + step + list.length) % list.length]!.id);
          return;
        }
        case 'next-needing': {
          // The next session after this one that waits for its person (the filter aside).
          const tabs = tabSessions(every, false, current);
          const index = tabs.findIndex((s) => s.id === current);
          const order = [...tabs.slice(index + 1), ...tabs.slice(0, index + 1)];
          const next = order.find((s) => s.needsYou && s.id !== current) ?? order.find((s) => s.needsYou);
          if (next) activate(next.id);
          return;
        }
        case 'search':
          // The search bar, once laid out, has the terminal load its whole history (SearchBar).
          return ui.setSearch(true);
        case 'copy':
          return host?.copy();
        case 'paste':
          return void host?.paste();
        case 'zoom':
          return registry?.setFontSize(ui.zoom(action.by));
        case 'toggle-sidebar':
          return ui.showSidebar(!ui.sidebarShown);
        case 'focus-sessions':
          // From the terminal to the list by the keyboard (Shift+Tab is the agent's): the row the
          // list's Tab stops at, the shown session's where it is listed.
          if (!ui.sidebarShown) ui.showSidebar(true);
          return void requestAnimationFrame(() => document.querySelector<HTMLElement>('.sidebar [role="tree"] [data-nav][tabindex="0"]')?.focus());
        case 'changes':
          if (!session) return;
          if (session.id !== current) activate(session.id);
          return ui.showChanges(ui.changesFor === session.id && session.id === current ? null : session.id);
      }
      if (!session) return;
      switch (action.kind) {
        case 'stop':
          return void run(session, () => api.stopSession({ id: session.id }));
        case 'start':
          return void run(session, () => api.startSession({ id: session.id }));
        case 'rename':
          return ui.open({ kind: 'rename', id: session.id });
        case 'archive':
          if (session.worktree)
            return ui.open({
              kind: 'confirm',
              title: `Archive "${session.name}"?`,
              body: `${isRunning(session.state) ? 'It is stopped first. ' : ''}Its worktree is kept as it is (the folder and the branch ${visible(session.worktree.branch)}), with its conversation, event log and receipts; restore it from the palette (Ctrl+K), or remove it to choose what becomes of the worktree.`,
              confirm: isRunning(session.state) ? 'Stop and archive' : 'Archive',
              then: () => void run(session, () => api.archiveSession({ id: session.id })),
            });
          if (!isRunning(session.state)) return void run(session, () => api.archiveSession({ id: session.id }));
          return ui.open({
            kind: 'confirm',
            title: `Archive "${session.name}"?`,
            body: 'It is stopped first. Its conversation, event log and receipts are kept; restore it from the palette (Ctrl+K).',
            confirm: 'Stop and archive',
            then: () => void run(session, () => api.archiveSession({ id: session.id })),
          });
        case 'restart-clean':
          return ui.open({
            kind: 'confirm',
            title: `Restart "${session.name}" clean?`,
            body: 'Its conversation is let go: the session starts fresh, with no history. The event log keeps which conversation it was.',
            confirm: 'Restart clean',
            danger: true,
            then: () =>
              void run(session, async () => {
                if (isRunning(session.state)) await api.stopSession({ id: session.id });
                await api.forgetKey({ id: session.id });
                await api.startSession({ id: session.id });
              }),
          });
        case 'remove': {
          // A worktree's fate is asked for in the removal itself.
          if (session.worktree) return ui.open({ kind: 'remove', id: session.id });
          const running = isRunning(session.state);
          // A worktree the list did not know of yet: the daemon refuses (409) and the choice is asked.
          const remove = () =>
            void run(session, () =>
              api.removeSession({ id: session.id, force: running }).catch((err) => {
                if (errorOf(err).field !== 'worktree') throw err;
                ui.open({ kind: 'remove', id: session.id, refused: errorOf(err).message });
              }),
            );
          return ui.open({
            kind: 'confirm',
            title: `Remove "${session.name}"?`,
            body: 'The session, its event log and its receipts go. This cannot be undone.',
            confirm: 'Remove',
            danger: true,
            then: running
              ? () =>
                  setTimeout(
                    () =>
                      ui.open({
                        kind: 'confirm',
                        title: `"${session.name}" is still running`,
                        body: 'Removing it ends its process now. Remove it anyway?',
                        confirm: 'End it and remove',
                        danger: true,
                        then: remove,
                      }),
                    0,
                  )
              : remove,
          });
        }
      }
    },
    [api, registry, run],
  );

  // The sidebar opens a session: the terminal takes the keys, as after a click on a tab.
  const openSession = useCallback(
    (id: string) => {
      (document.activeElement as HTMLElement | null)?.blur();
      if (useSessions.getState().activeId !== id) return useSessions.getState().activate(id);
      if (registry?.has(id)) registry.get(id).focus();
    },
    [registry],
  );

  const command = useCallback(
    (cmd: PaletteCommand) => {
      const { activate, sessions: every } = useSessions.getState();
      const session = every.find((s) => 'id' in cmd && s.id === cmd.id) ?? null;
      switch (cmd.kind) {
        case 'go':
          return activate(cmd.id);
        case 'restore':
          // Back, and running again (resuming its conversation): what a restore is for, in one step.
          return void run(session, async () => {
            await api.startSession({ id: cmd.id });
            useSessions.getState().activate(cmd.id);
          });
        case 'archive':
          return act({ kind: 'archive' });
        case 'copy-link':
          // A host's session is linked by its key, HOST/ID.
          return void navigator.clipboard?.writeText(sessionLink(cmd.id)).catch(() => {});
        case 'toggle-needs-filter':
          return useUi.getState().setNeedsFilter(!useUi.getState().needsFilter);
        case 'enable-notifications':
          return void Notification.requestPermission().then(setNotificationsAllowed, () => {});
        case 'settings':
          return useUi.getState().open({ kind: 'settings' });
        case 'usage':
          return useUi.getState().open({ kind: 'usage' });
        case 'action':
          return act(cmd.action);
      }
    },
    [act, api, run],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (useUi.getState().dialog || useUi.getState().paletteOpen) return;
      const action = shortcut(event, mac);
      if (!action) return;
      // While a session's menu is open, a shortcut of one of its items is that item, for the
      // menu's session (SessionMenu takes it): not this page's, for the session shown.
      if (document.activeElement?.closest('[role="menu"]')?.querySelector(`[data-action="${action.kind}"]`)) return;
      event.preventDefault();
      event.stopPropagation();
      act(action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [act, mac]);

  const activeEvents = active ? (events[active.id] ?? []) : [];
  const live = !!active && isRunning(active.state);
  const activeDown = active ? downLink(active.id, hosts) : null;

  return (
    <div className="workspace">
      {sidebarShown && <Sidebar api={api} onAction={act} onOpen={openSession} />}
      <div className="workspace-main">
        <SessionTabs api={api} onAction={act} />
        {downSince !== null && (
          <div className="error-bar link-down" role="alert">
            Corral stopped answering at {clock(downSince)}: trying again. What is shown may be out of
            date, and nothing typed reaches an agent until it is back.
          </div>
        )}
        {active && <ResumeBanner session={active} events={activeEvents} />}
        {wentAway && unfocused === activeId && (
          <div ref={wentAwayBar} tabIndex={-1} className="error-bar went-away" role="status">
            <span>
              <bdi>{wentAway.name}</bdi> was {wentAway.how}
              {active ? (
                <>
                  {' '}
                  — <bdi>{active.name}</bdi> is shown, and takes no typing until you click in it or pick it
                </>
              ) : null}
            </span>
            <button type="button" onClick={() => useSessions.getState().activate(activeId)} aria-label="Type into the session shown">
              ×
            </button>
          </div>
        )}
        {error && (!error.sessionId || error.sessionId === activeId) && (
          <div className="error-bar" role="alert">
            {error.message}
            <button type="button" onClick={() => useUi.getState().fail(null, null)} aria-label="Dismiss the error">
              ×
            </button>
          </div>
        )}
        {/* Clicking into the terminal is picking it. */}
        <main className="pane" onFocus={() => unfocused !== null && useSessions.getState().activate(useSessions.getState().activeId)}>
          <div className="pane-row">
            <div className="pane-main">
              {searchOpen && live && registry && <SearchBar key={active.id} host={registry.get(active.id)} />}
              <div ref={paneRef} className="terminal-pane" hidden={!live} aria-label={active ? `Terminal of ${active.name}` : undefined} />
              {live && activeDown && <HostDown api={api} id={active.id} words={downWords(activeDown)} />}
              {live && registry && <NothingDrawnYet key={`${active.id}:${active.startedAt}`} registry={registry} session={active} label={clis.find((c) => c.name === active.cli)?.label ?? active.cli} />}
              {active && !live && <StoppedSessionView session={active} events={activeEvents} api={api} onStart={() => act({ kind: 'start' })} />}
            </div>
            {active && changesFor === active.id && (
              <Suspense fallback={null}>
                <ChangesView key={active.id} api={api} session={active} />
              </Suspense>
            )}
            {preview && preview.sessionId === activeId && <PreviewPane key={`${preview.sessionId}:${preview.path}`} api={api} target={preview} />}
          </div>
          {loaded && sessions.every((s) => s.archivedAt !== null) && (
            <div className="empty">
              <p>{sessions.length === 0 ? 'No sessions yet.' : 'Every session is archived: restore one from the palette (Ctrl+K).'}</p>
              <button type="button" className="primary" onClick={() => act({ kind: 'new-session' })}>
                New session
              </button>
            </div>
          )}
        </main>
      </div>
      {dialog?.kind === 'new-session' && <NewSessionDialog clientOn={clientOn} />}
      {paletteOpen && <Palette onCommand={command} onRest={warmMatch} offerNotifications={notificationsAllowed === 'default'} />}
      <Dialogs api={api} />
    </div>
  );
}

/**
 * Over the terminal of a session whose host's link is down: what the link is doing, and the keys
 * typed meanwhile refused visibly (the daemon answers 503 host_unreachable), never queued.
 */
function HostDown({ api, id, words }: { api: ClientApi; id: string; words: string }) {
  const type = (text: string) => void api.write({ id, text }).catch((err) => useUi.getState().fail(id, errorOf(err)));
  const ref = useRef<HTMLDivElement>(null);
  // It takes the keys from the terminal under it, not from a dialog or the sidebar.
  useEffect(() => {
    const focused = document.activeElement;
    if (!focused || focused === document.body || focused.closest('.terminal-pane')) ref.current?.focus();
  }, []);
  return (
    <div
      ref={ref}
      className="host-down"
      role="status"
      tabIndex={0}
      onKeyDown={(e) => {
        if (e.ctrlKey || e.metaKey || e.altKey) return;
        const text = e.key.length === 1 ? e.key : e.key === 'Enter' ? '\r' : null;
        if (text === null) return;
        e.preventDefault();
        type(text);
      }}
    >
      <p>{words}…</p>
      <p className="hint">The agent keeps running there; its screen comes back with the link.</p>
    </div>
  );
}

/** How long after its start a session's blank screen is said to be "nothing drawn yet". */
const FIRST_DRAW_NOTE_MS = 60_000;
/** …and how long before it is said: a terminal takes a moment to connect. */
const FIRST_DRAW_QUIET_MS = 1_500;

/**
 * A session just started (or resuming) whose terminal shows nothing yet says so, over the pane's
 * corner: some CLIs draw nothing for many seconds (Claude Code offline: about 18 s). Once its
 * screen has shown anything, or a minute after its start, the note is gone for good.
 */
function NothingDrawnYet({ registry, session, label }: { registry: TerminalRegistry; session: SessionView; label: string }) {
  const age = () => (session.startedAt === null ? Infinity : Date.now() - session.startedAt);
  const [blank, setBlank] = useState(() => age() < FIRST_DRAW_NOTE_MS);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!blank) return;
    const look = () => {
      setBlank(age() < FIRST_DRAW_NOTE_MS && registry.screen(session.id).trim() === '');
      // Not for the moment any new terminal takes to connect.
      setShown(age() > FIRST_DRAW_QUIET_MS);
    };
    look();
    const timer = setInterval(look, 300);
    return () => clearInterval(timer);
    // (age reads the session's start, which the key holds.)
  }, [registry, session.id, blank]);
  if (!blank || !shown) return null;
  return (
    <div className="nothing-drawn" role="status">
      {session.state === 'resuming' ? 'Resuming its conversation' : 'Starting'}: {label} has drawn nothing yet.
    </div>
  );
}

/** How long the pointer stays still on a tab or row before its session's terminal connects. */
const POINTER_REST_MS = 60;
/** How long the keyboard's focus stays on a tab or row before it connects (as a palette match's rest). */
const FOCUS_REST_MS = 120;

/** Tells `done` of the session last given to `restart`, once it has been given no other for the time asked. */
function restTimer(done: (id: string) => void): { readonly id: string | undefined; restart(id: string | undefined, ms: number): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: string | undefined;
  return {
    get id() {
      return current;
    },
    restart(id, ms) {
      clearTimeout(timer);
      current = id;
      timer = id === undefined ? undefined : setTimeout(() => done(id), ms);
    },
  };
}
