// The Electron main process: embeds the engine, owns the window, the tray and corral:// links.
// Its logic lives in the plain modules beside it (tested without Electron); this file wires
// them to Electron's objects.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, MessageChannelMain, nativeImage, Notification, screen, shell, Tray, type IpcMainEvent, type MenuItemConstructorOptions } from 'electron';
import { WebSocket } from 'ws';
import type { ClientApi } from '../daemon/contract/contract';
import { createWebTransport, type SocketClass } from '../daemon/contract/webTransport';
import { NoticeBoard } from '../daemon/contract/notifications';
import { checkColors, checkHistory, isRunning, type Reconnecting, type SessionChange } from '../daemon/contract/session';
import { Engine } from '../daemon/engine/engine';
import { engineApi } from '../daemon/transports/inProcess';
import { CorralError } from '../daemon/contract/errors';
import { hostPrefix, sessionKey } from '../daemon/contract/hosts';
import { notificationText, notificationsReadMarkup } from './notificationText';
import { parseViewerFrame, type PagePortFrame, type PortFrame } from '../daemon/contract/frames';
import { readEndpoint, type Endpoint } from '../daemon/home/endpoint';
import { defaultHome, writePrivate } from '../daemon/home/home';
import { publish, type Published } from '../daemon/transports/http/publish';
import { linkFromArgv, parseDeepLink, SCHEME } from './deepLink';
import { ServeFollower } from './connection';
import { HostSessions } from './hostSessions';
import { CHANGES, HOST_CHANGES, hostArg, isAppUrl, RECONNECT, registerIpc, STREAM_OPEN, STREAM_PORT, type InvokeEvent } from './ipc';
import { openSessionLink } from './openLink';
import { loginShellEnv } from './loginShellEnv';
import { runningSessions, trayMenu, type TrayAction, type TrayItem } from './trayMenu';
import { restoreWindowState, type WindowState } from './windowState';

const RENDERER = path.join(__dirname, '..', 'renderer', 'index.html');
const RENDERER_URL = `file://${RENDERER}`;
const PRELOAD = path.join(__dirname, '..', 'preload', 'index.cjs');
const RESOURCES = app.isPackaged ? process.resourcesPath : path.join(__dirname, '..', '..', 'resources');
const home = defaultHome();
const settingsFile = path.join(home, 'app.json');

interface Settings {
  window?: WindowState;
  notifications?: boolean;
  closeHintShown?: boolean;
}
const readSettings = (): Settings => {
  try {
    return JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Settings;
  } catch {
    return {};
  }
};
const writeSettings = (change: Partial<Settings>) => {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  writePrivate(settingsFile, JSON.stringify({ ...readSettings(), ...change }, null, 2));
};

let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let engine: Engine | null = null;
let api: ClientApi | null = null;
let published: (Published & { token: string }) | null = null;
let stopListening: (() => void) | null = null;
/** The remote hosts' clients and sessions, through the daemon's proxy; null without a local API to reach it by. */
let hosts: HostSessions | null = null;
/** The environment agents start from (the login shell's). */
let agentEnv: NodeJS.ProcessEnv = process.env;
let quitting = false;
let pendingLink: string | null = linkFromArgv(process.argv);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => {
    const link = linkFromArgv(argv);
    if (link) void openLink(link);
    else showWindow();
  });
  app.on('open-url', (event, url) => {
    event.preventDefault();
    if (app.isReady()) void openLink(url);
    else pendingLink = url;
  });
  if (process.defaultApp && process.argv[1]) app.setAsDefaultProtocolClient(SCHEME, process.execPath, [path.resolve(process.argv[1])]);
  else app.setAsDefaultProtocolClient(SCHEME);
  app.whenReady().then(start, (err) => fatal(err));
}

async function start(): Promise<void> {
  // GUI apps get a thin PATH: take the login shell's environment for the agents.
  const { env, problem } = process.platform === 'win32' ? { env: process.env, problem: null } : await loginShellEnv(os.userInfo().shell ?? process.env.SHELL, process.env);
  if (problem) console.warn(`corral: ${problem}; agents get this app's own environment`);
  agentEnv = env;
  let first: ClientApi | null;
  try {
    first = await openOwnEngine();
  } catch (err) {
    return fatal(err);
  }
  if (first) {
    useApi(first, published);
  } else {
    // A `corral serve` holds this home: use it through its API. The window, the tray, links
    // and notifications work as with an embedded engine; the renderer cannot tell. The app
    // follows that daemon through a restart, and runs the engine itself once it is gone.
    const endpoint = readEndpoint(home);
    if (!endpoint) return fatal(new Error(`Corral home ${home} is in use, and its holder says nowhere how to reach it`));
    useApi(connectTo(endpoint), endpoint);
    const follower = new ServeFollower(
      { kind: 'serve', endpoint },
      {
        readEndpoint: () => readEndpoint(home),
        openEngine: openOwnEngine,
        connect: connectTo,
        use: (next, source) => {
          useApi(next, source.kind === 'serve' ? source.endpoint : published);
          // The renderer starts over on the new source: its list, its streams.
          win?.webContents.reload();
          if (source.kind === 'engine') clearInterval(following);
        },
        log: (message) => console.warn(`corral: ${message}`),
      },
    );
    const following = setInterval(() => void follower.tick().catch((err: unknown) => console.error('corral:', err)), 2_000);
  }
  registerIpc(ipcMain, client, trusted);
  ipcMain.on(STREAM_OPEN, openStream);
  createWindow();
  createTray();
  if (pendingLink) void openLink(pendingLink);
}

/** The app's own engine, published on loopback; null when something else holds the home. */
async function openOwnEngine(): Promise<ClientApi | null> {
  try {
    engine = await Engine.open({ home, env: agentEnv, holder: 'the Corral app' });
  } catch (err) {
    if (err instanceof CorralError && err.code === 'home_locked') return null;
    throw err;
  }
  // The same loopback API `corral serve` offers, while the app holds the home: `corral ls`,
  // `corral attach` and MCP work, and agents' hooks (CORRAL_URL…) reach this engine.
  published = await publish(engine, { host: '127.0.0.1', port: 0, allowRemote: false, webRoot: path.dirname(RENDERER), holder: 'the Corral app' }).catch((err: unknown) => {
    console.warn(`corral: the local API is off (${(err as Error).message}); the app works without it`);
    return null;
  });
  return engineApi(engine);
}

function connectTo(endpoint: Endpoint): ClientApi {
  return createWebTransport(endpoint.url, endpoint.token, WebSocket as unknown as SocketClass);
}

/**
 * Makes `next` the source of sessions: the window, the tray and notifications follow it, and its
 * hosts' sessions through the proxy at `base` (the same daemon's API, with its token).
 */
function useApi(next: ClientApi, base: { url: string; token: string } | null): void {
  stopListening?.();
  hosts?.close();
  api = next;
  const following = base
    ? new HostSessions({
        connect: (host) => createWebTransport(base.url + hostPrefix(host), base.token, WebSocket as unknown as SocketClass),
        onChange: (host, change) => {
          win?.webContents.send(CHANGES, change, host);
          notify(change, host);
        },
        onReconnect: (host, sessions) => win?.webContents.send(RECONNECT, host, sessions),
        onUpdate: () => void refreshTray(),
      })
    : null;
  hosts = following;
  const offChange = api.onSessionChange((change) => {
    win?.webContents.send(CHANGES, change, null);
    void refreshTray();
    notify(change, null);
  });
  // A followed `corral serve`'s stream connected again: changes made meanwhile were not heard,
  // so the window takes the hello's list, and the tray is made again.
  const offReconnect =
    (api as Reconnecting).onReconnect?.((sessions) => {
      win?.webContents.send(RECONNECT, null, sessions);
      void refreshTray();
    }) ?? (() => {});
  const offHosts =
    api.onHostChange?.((change) => {
      following?.apply(change);
      win?.webContents.send(HOST_CHANGES, change);
    }) ?? (() => {});
  void api.listHosts().then(({ hosts: list }) => following?.replace(list), () => {});
  stopListening = () => {
    offChange();
    offReconnect();
    offHosts();
  };
  void refreshTray();
}

/** This machine's client (null), or a host's through the daemon's proxy. */
function client(host: string | null): ClientApi {
  if (host === null) return api!;
  if (!hosts) throw new CorralError('host_unreachable', `the app's local API is off (see its log), so it does not reach ${host}; in a terminal: corral ls --host ${host}`);
  return hosts.client(host);
}

function trusted(event: InvokeEvent): boolean {
  return !!win && event.sender === win.webContents && event.senderFrame === win.webContents.mainFrame && isAppUrl(event.senderFrame.url, RENDERER_URL);
}

function openStream(event: IpcMainEvent, req: { requestId: number; id: string; host?: unknown; cols: number; rows: number; colors?: unknown; history?: unknown; inUse?: unknown }): void {
  if (!trusted(event as unknown as InvokeEvent) || !api || typeof req?.id !== 'string') return;
  const host = hostArg(req.host);
  if (host === undefined) return;
  const { port1, port2 } = new MessageChannelMain();
  const colors = checkColors(req.colors);
  const history = checkHistory(req.history);
  let source: ClientApi;
  try {
    source = client(host);
  } catch (err) {
    const error = (err as CorralError).toShape();
    port1.postMessage({ type: 'closed', reason: error.message, error } satisfies PortFrame);
    port1.close();
    return void event.sender.postMessage(STREAM_PORT, { requestId: req.requestId }, [port2]);
  }
  const stream = source.openStream(req.id, { cols: req.cols, rows: req.rows, ...(colors ? { colors } : {}), ...(history === undefined ? {} : { history }), inUse: req.inUse === true }, {
    onData: (data) => port1.postMessage({ type: 'data', data } satisfies PortFrame),
    onClosed: (info) => {
      port1.postMessage({ type: 'closed', ...info } satisfies PortFrame);
      port1.close();
    },
  });
  port1.on('message', ({ data }) => {
    if ((data as PagePortFrame | null)?.type === 'close') return stream.close();
    const frame = parseViewerFrame(data);
    if ('error' in frame) return;
    if (frame.type === 'input') stream.write(frame.data);
    else if (frame.type === 'resize') stream.resize(frame.cols, frame.rows);
    else stream.ack(frame.bytes);
  });
  port1.on('close', () => stream.close());
  port1.start();
  event.sender.postMessage(STREAM_PORT, { requestId: req.requestId }, [port2]);
}

function createWindow(): void {
  const settings = readSettings();
  const state = restoreWindowState(settings.window, screen.getAllDisplays().map((d) => d.workArea));
  win = new BrowserWindow({
    ...state,
    show: false,
    title: 'Corral',
    icon: path.join(RESOURCES, 'icon.png'),
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  if (state.maximized) win.maximize();
  const contents = win.webContents;
  // Nothing navigates away or opens windows; web links go to the system browser.
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url: target }) => {
    if (/^https?:\/\//.test(target)) void shell.openExternal(target);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  win.once('ready-to-show', () => win?.show());
  const save = () => {
    if (!win) return;
    writeSettings({ window: { ...win.getNormalBounds(), maximized: win.isMaximized() } });
  };
  win.on('resize', save);
  win.on('move', save);
  win.on('close', (event) => {
    if (quitting || !tray) return;
    // Closing the window keeps the app and the agents running in the tray.
    event.preventDefault();
    win?.hide();
    if (!readSettings().closeHintShown && Notification.isSupported()) {
      new Notification({ title: 'Corral is still running', body: 'Your agents keep working. Open Corral again from the tray.' }).show();
      writeSettings({ closeHintShown: true });
    }
  });
  void win.loadFile(RENDERER);
}

function showWindow(): void {
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

async function openLink(raw: string): Promise<void> {
  pendingLink = null;
  const parsed = parseDeepLink(raw);
  if (!parsed.ok) return void dialog.showMessageBox({ type: 'warning', message: 'Corral could not open that link', detail: parsed.reason });
  if (!api) return showWindow();
  await openSessionLink(parsed.link, {
    client,
    focus: focusSession,
    warn: (detail) => void dialog.showMessageBox({ type: 'warning', message: 'Corral could not open that link', detail }),
  });
}

/** Shows the window with a session's tab: its id, or HOST/ID for a host's (the renderer opens it once listed). */
function focusSession(key: string): void {
  showWindow();
  win?.webContents.send('corral:focus-session', key);
}

function createTray(): void {
  const icon = nativeImage.createFromPath(path.join(RESOURCES, 'tray.png'));
  tray = new Tray(icon.isEmpty() ? nativeImage.createEmpty() : icon);
  tray.on('click', showWindow);
  void refreshTray();
}

async function refreshTray(): Promise<void> {
  if (!tray || !api) return;
  const model = trayMenu((await api.listSessions()).sessions, { notifications: readSettings().notifications, hosts: hosts?.list() ?? [] });
  tray.setToolTip(model.tooltip);
  // The icon tells when any session waits for its person.
  const icon = nativeImage.createFromPath(path.join(RESOURCES, model.attention ? 'tray-attention.png' : 'tray.png'));
  if (!icon.isEmpty()) tray.setImage(icon);
  tray.setContextMenu(Menu.buildFromTemplate(model.items.map(toElectron)));
}

function toElectron(item: TrayItem): MenuItemConstructorOptions {
  if (item.separator) return { type: 'separator' };
  return {
    label: item.label,
    enabled: item.enabled ?? true,
    ...(item.checked !== undefined ? { type: 'checkbox' as const, checked: item.checked } : {}),
    ...(item.submenu ? { submenu: item.submenu.map(toElectron) } : {}),
    ...(item.action ? { click: () => void trayAction(item.action!) } : {}),
  };
}

async function trayAction(action: TrayAction): Promise<void> {
  if (!api) return;
  switch (action.kind) {
    case 'start':
      return void (await onMachine(action.host, (on) => on.startSession({ id: action.id })));
    case 'stop':
      return void (await onMachine(action.host, (on) => on.stopSession({ id: action.id })));
    case 'show-session':
      return focusSession(sessionKey(action.host ?? null, action.id));
    case 'new-session':
      showWindow();
      return void win?.webContents.send('corral:new-session');
    case 'show':
      return showWindow();
    case 'stop-all': {
      const up = runningSessions((await api.listSessions()).sessions, hosts?.list() ?? []);
      const { response } = await dialog.showMessageBox({ type: 'question', buttons: ['Stop all', 'Cancel'], defaultId: 1, message: `Stop ${up.length} running session${up.length === 1 ? '' : 's'}?`, detail: 'They keep their conversations and can be resumed.' });
      if (response === 0) for (const s of up) await onMachine(s.host, (on) => on.stopSession({ id: s.id }));
      return;
    }
    case 'toggle-notifications':
      writeSettings({ notifications: readSettings().notifications === false });
      return void refreshTray();
    case 'quit':
      return app.quit();
  }
}

/** A tray action on a session of this machine or of a host; a refusal (a host gone down meanwhile) changes nothing. */
async function onMachine(host: string | undefined, act: (on: ClientApi) => Promise<unknown>): Promise<void> {
  try {
    await act(client(host ?? null));
  } catch {
    // the menu shows the session as it is, next time it opens
  }
}

const notices = new NoticeBoard();

/** A session's change worth a notification (`host` names a remote host's); a click opens its tab. */
function notify(change: SessionChange, host: string | null): void {
  const notice = notices.notice(change, host);
  if (!notice || readSettings().notifications === false || !Notification.isSupported()) return;
  const markup = notificationsReadMarkup(process.platform);
  const note = new Notification({ title: notificationText(notice.title, false), body: notificationText(notice.body, markup) });
  note.on('click', () => focusSession(notice.sessionId));
  note.show();
}

app.on('before-quit', (event) => {
  if (quitting) return;
  // Only the pty backend ends agents with the app: ask then, and only then.
  if (engine?.backend.kind === 'pty') {
    event.preventDefault();
    void api!.listSessions().then(async ({ sessions }) => {
      const up = sessions.filter((s) => isRunning(s.state)).length;
      const { response } = up
        ? await dialog.showMessageBox({ type: 'warning', buttons: ['Quit', 'Cancel'], defaultId: 1, message: `Quitting ends ${up} running session${up === 1 ? '' : 's'}.`, detail: 'Without tmux, agents run inside Corral. They keep their conversations and can be resumed.' })
        : { response: 0 };
      if (response === 0) {
        quitting = true;
        await closeAll();
        app.quit();
      }
    });
    return;
  }
  quitting = true;
  event.preventDefault();
  void closeAll().finally(() => app.exit(0));
});

/** The local API first (so no client reaches a closing engine), then the engine. */
async function closeAll(): Promise<void> {
  hosts?.close();
  await published?.close().catch(() => {});
  await engine?.close();
}

function fatal(err: unknown): void {
  dialog.showErrorBox('Corral could not start', err instanceof Error ? err.message : String(err));
  app.exit(1);
}
