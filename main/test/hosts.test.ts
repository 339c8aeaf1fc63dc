// The desktop app's remote hosts without Electron: each call of the window routed to its host's
// client, the hosts' sessions followed for the tray and notifications, the tray by machine, and
// a corral://session/HOST/ID link, with fakes of the clients.

import { describe, expect, it, vi } from 'vitest';
import type { ClientApi } from '../../daemon/contract/contract';
import { CorralError } from '../../daemon/contract/errors';
import type { HostView } from '../../daemon/contract/hosts';
import type { SessionChange, SessionView } from '../../daemon/contract/session';
import { sessionView as session } from '../../daemon/test/support/sessionView';
import { HostSessions } from '../hostSessions';
import { hostArg, registerIpc, type InvokeEvent } from '../ipc';
import { openSessionLink } from '../openLink';
import { runningSessions, trayMenu } from '../trayMenu';

const ID = '6f1209a7-1b90-4c61-97a2-2d6eedeac469';
const host = (name: string, state: HostView['state'] = 'connected', over: Partial<HostView> = {}): HostView => ({ name, target: name, corral: null, state, message: null, ...over });

/** A host's client: its list, its change listeners, its reconnect listeners, what it was asked. */
function fakeHost(sessions: SessionView[]) {
  const changes = new Set<(change: SessionChange) => void>();
  const reconnects = new Set<(sessions?: SessionView[]) => void>();
  const client = {
    listSessions: vi.fn(async () => ({ sessions })),
    startSession: vi.fn(async (req: { id: string }) => ({ resumed: false, session: session({ id: req.id }) })),
    onSessionChange: (listener: (change: SessionChange) => void) => {
      changes.add(listener);
      return () => changes.delete(listener);
    },
    onReconnect: (listener: (sessions?: SessionView[]) => void) => {
      reconnects.add(listener);
      return () => reconnects.delete(listener);
    },
  };
  return {
    client: client as unknown as ClientApi & { onReconnect(l: (sessions?: SessionView[]) => void): () => void },
    calls: client,
    change: (change: SessionChange) => changes.forEach((l) => l(change)),
    hello: (list?: SessionView[]) => reconnects.forEach((l) => l(list)),
    listening: () => changes.size,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the desktop app's hosts", () => {
  it('follows each connected host: its list at the events hello, each change passed on with its host, and the last known kept while the link is down', async () => {
    const devbox = fakeHost([session({ id: 'a1', name: 'train' })]);
    const passed: [string, SessionChange][] = [];
    const reconnected: string[] = [];
    const hosts = new HostSessions({ connect: () => devbox.client, onChange: (h, c) => passed.push([h, c]), onReconnect: (h) => reconnected.push(h), onUpdate: () => {} });
    hosts.replace([host('devbox', 'connecting')]);
    expect(devbox.listening()).toBe(0);
    hosts.apply({ kind: 'updated', host: host('devbox') });
    expect(devbox.listening()).toBe(1);
    devbox.hello();
    await settle();
    expect(reconnected).toEqual(['devbox']);
    expect(hosts.list().map((h) => [h.host.name, h.sessions.map((s) => s.name)])).toEqual([['devbox', ['train']]]);
    const needs = session({ id: 'a1', name: 'train', needsYou: { source: 'screen', since: 1, detail: 'Proceed?' } });
    devbox.change({ kind: 'updated', session: needs });
    devbox.change({ kind: 'added', session: session({ id: 'a2', name: 'eval' }) });
    expect(passed.map(([h, c]) => [h, c.kind, c.session.id])).toEqual([
      ['devbox', 'updated', 'a1'],
      ['devbox', 'added', 'a2'],
    ]);
    expect(hosts.list()[0]!.sessions.map((s) => [s.id, !!s.needsYou])).toEqual([
      ['a1', true],
      ['a2', false],
    ]);
    hosts.apply({ kind: 'updated', host: host('devbox', 'reconnecting') });
    expect(devbox.listening()).toBe(0);
    expect(hosts.list()[0]!.host.state).toBe('reconnecting');
    expect(hosts.list()[0]!.sessions.map((s) => s.id)).toEqual(['a1', 'a2']);
    hosts.apply({ kind: 'removed', host: host('devbox') });
    expect(hosts.list()).toEqual([]);
  });

  it("takes the list its events hello brings, so no older list read apart from it undoes a change after it", async () => {
    const devbox = fakeHost([]);
    let answer: (list: { sessions: SessionView[] }) => void = () => {};
    devbox.calls.listSessions.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const relayed: (string[] | undefined)[] = [];
    const hosts = new HostSessions({ connect: () => devbox.client, onChange: () => {}, onReconnect: (_h, list) => relayed.push(list?.map((s) => s.id)), onUpdate: () => {} });
    hosts.replace([host('devbox')]);
    devbox.hello([session({ id: 'a1', name: 'train' })]);
    // The window is given the same list, before the changes relayed after it.
    expect(relayed).toEqual([['a1']]);
    devbox.change({ kind: 'added', session: session({ id: 'a2', name: 'eval' }) });
    answer({ sessions: [] });
    await settle();
    expect(hosts.list()[0]!.sessions.map((s) => s.name)).toEqual(['train', 'eval']);
  });

  it("makes one client a host, and each host's its own", () => {
    const connect = vi.fn((name: string) => ({ name }) as unknown as ClientApi);
    const hosts = new HostSessions({ connect, onChange: () => {}, onReconnect: () => {}, onUpdate: () => {} });
    expect(hosts.client('devbox')).toBe(hosts.client('devbox'));
    expect(hosts.client('gpu')).not.toBe(hosts.client('devbox'));
    expect(connect.mock.calls.map(([name]) => name)).toEqual(['devbox', 'gpu']);
  });

  it("sends a window's call naming a host to that host's client, checked like any other, and refuses a host that is no name", async () => {
    const handlers = new Map<string, (event: InvokeEvent, req: unknown, host?: unknown) => Promise<unknown>>();
    const ipcMain = { handle: (channel: string, l: (event: InvokeEvent, req: unknown, host?: unknown) => Promise<unknown>) => handlers.set(channel, l), on: () => {} };
    const local = { startSession: vi.fn(async () => ({ resumed: false, session: { id: 'here' } })) };
    const devbox = { startSession: vi.fn(async () => ({ resumed: true, session: { id: 'there' } })) };
    const api = vi.fn((where: string | null) => (where === null ? local : devbox) as unknown as ClientApi);
    registerIpc(ipcMain, api, (event) => event.sender === 'our-window');
    const ours = { sender: 'our-window', senderFrame: { url: 'file:///app/out/renderer/index.html' } };
    const start = handlers.get('corral:startSession')!;
    expect(await start(ours, { id: 'x' }, 'devbox')).toEqual({ ok: true, value: { resumed: true, session: { id: 'there' } } });
    expect(await start(ours, { id: 'x' }, null)).toEqual({ ok: true, value: { resumed: false, session: { id: 'here' } } });
    expect(await start(ours, { id: 'x' })).toMatchObject({ ok: true, value: { session: { id: 'here' } } });
    expect(await start(ours, { id: 'x' }, '-oProxyCommand=x')).toEqual({ ok: false, error: { code: 'bad_request', message: 'the host: not a host name', field: 'host' } });
    expect(await start(ours, { id: 7 }, 'devbox')).toMatchObject({ ok: false, error: { code: 'bad_request', field: 'id' } });
    expect(await start({ sender: 'a-webview', senderFrame: { url: 'https://evil.example/' } }, { id: 'x' }, 'devbox')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(devbox.startSession).toHaveBeenCalledTimes(1);
    expect(local.startSession).toHaveBeenCalledTimes(2);
    expect(api.mock.calls.map(([where]) => where)).toEqual(['devbox', null, null]);
    expect([hostArg(undefined), hostArg(null), hostArg('gpu-2'), hostArg('a/b'), hostArg(3)]).toEqual([null, null, 'gpu-2', undefined, undefined]);
  });

  it("passes a host's refusal on as its shape (the link is down: nothing was sent)", async () => {
    const handlers = new Map<string, (event: InvokeEvent, req: unknown, host?: unknown) => Promise<unknown>>();
    const ipcMain = { handle: (channel: string, l: (event: InvokeEvent, req: unknown, host?: unknown) => Promise<unknown>) => handlers.set(channel, l), on: () => {} };
    const refusal = { status: 503, error: { code: 'host_unreachable', message: 'host devbox is reconnecting; nothing was sent' } };
    const devbox = { write: async () => Promise.reject(refusal) };
    registerIpc(ipcMain, () => devbox as unknown as ClientApi, () => true);
    expect(await handlers.get('corral:write')!({ sender: 'w', senderFrame: null }, { id: 'a1', text: 'x' }, 'devbox')).toEqual({ ok: false, error: refusal.error });
  });
});

describe('the tray with hosts', () => {
  const here = [session({ id: 'l1', name: 'web' })];
  const devbox = { host: host('devbox'), sessions: [session({ id: 'd1', name: 'train', needsYou: { source: 'screen', since: 0, detail: 'Proceed?' } }), session({ id: 'd2', name: 'eval', state: 'stopped' })] };
  const gpu = { host: host('gpu', 'reconnecting', { attempt: 2 }), sessions: [session({ id: 'g1', name: 'bench' })] };
  const cloud = { host: host('cloud', 'missing', { missing: [{ what: 'tmux', install: 'sudo apt-get install tmux' }] }), sessions: [] };

  it('lists sessions by machine, this one first then hosts by name, a host that is down saying so', () => {
    const model = trayMenu(here, { hosts: [gpu, devbox, cloud] });
    expect(model.items.map((i) => (i.separator ? '—' : i.label))).toEqual([
      'This machine',
      'web — idle',
      '—',
      'cloud — missing tmux',
      'No sessions known',
      '—',
      'devbox',
      'train — needs you',
      'eval — stopped',
      '—',
      'gpu — reconnecting',
      'bench — idle',
      '—',
      'New session…',
      'Show Corral',
      'Stop all…',
      '—',
      'Desktop notifications',
      'Quit',
    ]);
    expect(model.items.filter((i) => ['This machine', 'devbox', 'gpu — reconnecting'].includes(i.label)).every((i) => i.enabled === false)).toBe(true);
    expect(model.tooltip).toBe('Corral — 2 running, 1 needs you');
    expect(model.attention).toBe(true);
  });

  it("acts on the right host's session; a down host's only shows its tab", () => {
    const model = trayMenu(here, { hosts: [devbox, gpu] });
    const item = (label: string) => model.items.find((i) => i.label === label)!;
    expect(item('web — idle').submenu!.map((i) => i.action)).toEqual([{ kind: 'show-session', id: 'l1' }, { kind: 'stop', id: 'l1' }]);
    expect(item('train — needs you').submenu!.map((i) => i.action)).toEqual([{ kind: 'show-session', id: 'd1', host: 'devbox' }, { kind: 'stop', id: 'd1', host: 'devbox' }]);
    expect(item('eval — stopped').submenu![1]).toEqual({ label: 'Resume', action: { kind: 'start', id: 'd2', host: 'devbox' } });
    expect(item('bench — idle').submenu).toEqual([
      { label: 'Show', action: { kind: 'show-session', id: 'g1', host: 'gpu' } },
      { label: 'Stop', action: { kind: 'stop', id: 'g1', host: 'gpu' }, enabled: false },
    ]);
    // Stop all stops what runs here and on a host whose link is up.
    expect(runningSessions(here, [devbox, gpu])).toEqual([{ id: 'l1' }, { id: 'd1', host: 'devbox' }]);
  });

  it('is as before without hosts', () => {
    expect(trayMenu(here).items[0]!.label).toBe('web — idle');
    expect(trayMenu([], { hosts: [] }).items[0]).toEqual({ label: 'No sessions', enabled: false });
  });
});

describe('a corral://session link in the desktop app', () => {
  const deps = (clients: Record<string, Partial<ClientApi>>) => {
    const focused: string[] = [];
    const warned: string[] = [];
    return {
      focused,
      warned,
      deps: {
        client: (where: string | null) => {
          const made = clients[where ?? 'local'];
          if (!made) throw new CorralError('host_unreachable', `no way to ${where}`);
          return made as ClientApi;
        },
        focus: (key: string) => focused.push(key),
        warn: (detail: string) => warned.push(detail),
      },
    };
  };

  it("opens a host's session as HOST/ID and resumes it there when it is stopped", async () => {
    const startSession = vi.fn(async () => ({}));
    const localStart = vi.fn(async () => ({}));
    const { focused, deps: d } = deps({ devbox: { getSession: async () => session({ id: ID, state: 'stopped' }), startSession } as unknown as Partial<ClientApi>, local: { startSession: localStart } as unknown as Partial<ClientApi> });
    await openSessionLink({ kind: 'session', id: ID, host: 'devbox' }, d);
    expect(focused).toEqual([`devbox/${ID}`]);
    expect(startSession).toHaveBeenCalledWith({ id: ID });
    expect(localStart).not.toHaveBeenCalled();
  });

  it("asks for the tab of a host whose link is not up yet (the window opens it once the host's list is in)", async () => {
    const refusal = { status: 503, error: { code: 'host_unreachable', message: 'host devbox is connecting; nothing was sent' } };
    const { focused, warned, deps: d } = deps({ devbox: { getSession: () => Promise.reject(refusal) } as unknown as Partial<ClientApi> });
    await openSessionLink({ kind: 'session', id: ID, host: 'devbox' }, d);
    await openSessionLink({ kind: 'session', id: ID, host: 'gpu' }, d);
    expect(focused).toEqual([`devbox/${ID}`, `gpu/${ID}`]);
    expect(warned).toEqual([]);
  });

  it("says so when the host has no such session, or names no host it knows; this machine's as before", async () => {
    const unknown = { status: 404, error: { code: 'unknown_session', message: 'no session' } };
    const noHost = { status: 404, error: { code: 'not_found', message: 'no host named "nas" (corral hosts ls lists them)' } };
    const { focused, warned, deps: d } = deps({
      devbox: { getSession: () => Promise.reject(unknown) } as unknown as Partial<ClientApi>,
      nas: { getSession: () => Promise.reject(noHost) } as unknown as Partial<ClientApi>,
      local: { getSession: () => Promise.reject(new CorralError('unknown_session', 'no session')) } as unknown as Partial<ClientApi>,
    });
    await openSessionLink({ kind: 'session', id: ID, host: 'devbox' }, d);
    await openSessionLink({ kind: 'session', id: ID, host: 'nas' }, d);
    await openSessionLink({ kind: 'session', id: ID }, d);
    expect(focused).toEqual([]);
    expect(warned).toEqual([`There is no session ${ID} on devbox any more.`, 'no host named "nas" (corral hosts ls lists them)', `There is no session ${ID} any more.`]);
  });
});
