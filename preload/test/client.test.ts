// The desktop window's client without Electron: a fake ipcRenderer records what goes to main and
// plays what main sends. A host's client names its host in every call and stream, and hears only
// its own host's changes; this machine's client hears only this machine's.

import { describe, expect, it } from 'vitest';
import type { Reconnecting, SessionChange, SessionView } from '../../daemon/contract/session';
import type { ClientApi } from '../../daemon/contract/contract';
import { desktopApi, type IpcEvent, type IpcRendererLike } from '../client';

function fakeIpcRenderer() {
  const invoked: unknown[][] = [];
  const sent: unknown[][] = [];
  const listeners = new Map<string, Set<(event: IpcEvent, ...args: unknown[]) => void>>();
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      invoked.push([channel, ...args]);
      return { ok: true, value: { sessions: [] } };
    },
    send: (channel, ...args) => void sent.push([channel, ...args]),
    sendSync: (channel) => (channel === 'corral:methods' ? ['listSessions', 'write', 'not a name!'] : null),
    on: (channel, listener) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    },
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
  const emit = (channel: string, ...args: unknown[]) => listeners.get(channel)?.forEach((l) => l({ ports: [] }, ...args));
  return { ipc, invoked, sent, emit, count: (channel: string) => listeners.get(channel)?.size ?? 0 };
}

const change = (id: string): SessionChange => ({ kind: 'updated', session: { id } as SessionView });

describe("the desktop window's client", () => {
  it('makes one function per method main names, and calls main with no host for this machine and the host for a host', async () => {
    const fake = fakeIpcRenderer();
    const api = desktopApi(fake.ipc);
    expect(typeof api.listSessions).toBe('function');
    expect('not a name!' in api).toBe(false);
    const devbox = api.hostClient!('devbox');
    await api.listSessions();
    await devbox.write({ id: 'a1', text: 'x' });
    expect(fake.invoked).toEqual([
      ['corral:listSessions', undefined, null],
      ['corral:write', { id: 'a1', text: 'x' }, 'devbox'],
    ]);
  });

  it("opens a host's terminal stream naming its host", () => {
    const fake = fakeIpcRenderer();
    const api = desktopApi(fake.ipc);
    const handlers = { onData: () => {}, onClosed: () => {} };
    api.openStream('l1', { cols: 80, rows: 24 }, handlers);
    api.hostClient!('devbox').openStream('a1', { cols: 80, rows: 24 }, handlers);
    expect(fake.sent.map(([channel, req]) => [channel, (req as { id: string }).id, (req as { host: unknown }).host])).toEqual([
      ['corral:open-stream', 'l1', null],
      ['corral:open-stream', 'a1', 'devbox'],
    ]);
  });

  it("hears each machine's changes on its own client only, and a machine's reconnection on that machine's", () => {
    const fake = fakeIpcRenderer();
    const api = desktopApi(fake.ipc) as ClientApi & Required<Reconnecting>;
    const devbox = api.hostClient!('devbox') as ClientApi & Required<Reconnecting>;
    const heard: string[] = [];
    const offLocal = api.onSessionChange((c) => heard.push(`local ${c.session.id}`));
    const offDevbox = devbox.onSessionChange((c) => heard.push(`devbox ${c.session.id}`));
    api.hostClient!('gpu').onSessionChange((c) => heard.push(`gpu ${c.session.id}`));
    const listed = (sessions?: SessionView[]) => (sessions ? ` with ${sessions.map((s) => s.id).join(' ')}` : '');
    devbox.onReconnect((sessions) => heard.push(`devbox again${listed(sessions)}`));
    // This machine's: main's stream from a followed `corral serve` connected again.
    api.onReconnect((sessions) => heard.push(`local again${listed(sessions)}`));
    fake.emit('corral:change', change('l1'), null);
    fake.emit('corral:change', change('a1'), 'devbox');
    fake.emit('corral:change', change('g1'), 'gpu');
    fake.emit('corral:reconnect', 'gpu');
    fake.emit('corral:reconnect', 'devbox');
    // With the hello's list, the host's list as of the changes relayed after it.
    fake.emit('corral:reconnect', 'devbox', [change('a1').session, change('a2').session]);
    fake.emit('corral:reconnect', null, [change('l2').session]);
    expect(heard).toEqual(['local l1', 'devbox a1', 'gpu g1', 'devbox again', 'devbox again with a1 a2', 'local again with l2']);
    offLocal();
    offDevbox();
    expect(fake.count('corral:change')).toBe(1);
  });
});
