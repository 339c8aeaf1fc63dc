import { describe, expect, it, vi } from 'vitest';
import type { ClientApi } from '../../daemon/contract/contract';
import { CorralError } from '../../daemon/contract/errors';
import { CHANNEL, HANDLERS, isAppUrl, registerIpc, type InvokeEvent } from '../ipc';

function fakeIpc() {
  const handlers = new Map<string, (event: InvokeEvent, req: unknown) => Promise<unknown>>();
  return { handlers, ipcMain: { handle: (channel: string, listener: (event: InvokeEvent, req: unknown) => Promise<unknown>) => handlers.set(channel, listener) } };
}

const ours = { sender: 'our-window', senderFrame: { url: 'file:///app/out/renderer/index.html' } };
const theirs = { sender: 'a-webview', senderFrame: { url: 'https://evil.example/' } };

describe('the IPC adapter', () => {
  // That HANDLERS has exactly the contract's methods is the type checker's to say (satisfies).
  it('registers one channel per handler, and no other', () => {
    const { handlers, ipcMain } = fakeIpc();
    registerIpc(ipcMain, () => ({}) as ClientApi, () => true);
    expect([...handlers.keys()].sort()).toEqual(Object.keys(HANDLERS).map((m) => `corral:${m}`).sort());
    expect(CHANNEL('startSession')).toBe('corral:startSession');
  });

  it('answers our own window, and refuses any other sender without calling the engine', async () => {
    const { handlers, ipcMain } = fakeIpc();
    const startSession = vi.fn(async () => ({ resumed: true, session: { id: 'x' } }));
    registerIpc(ipcMain, () => ({ startSession }) as unknown as ClientApi, (event) => event.sender === 'our-window');
    expect(await handlers.get('corral:startSession')!(ours, { id: 'x' })).toEqual({ ok: true, value: { resumed: true, session: { id: 'x' } } });
    expect(await handlers.get('corral:startSession')!(theirs, { id: 'x' })).toEqual({ ok: false, error: { code: 'forbidden', message: 'only Corral’s own window may call it' } });
    expect(startSession).toHaveBeenCalledTimes(1);
  });

  it('passes expected errors on as shapes, and hides (but logs) anything else', async () => {
    const { handlers, ipcMain } = fakeIpc();
    const log = vi.fn();
    const api = {
      getSession: async () => {
        throw new CorralError('unknown_session', 'no session with id "x"', 'id');
      },
      listSessions: async () => {
        throw new TypeError('cannot read properties of undefined');
      },
    } as unknown as ClientApi;
    registerIpc(ipcMain, () => api, () => true, log);
    expect(await handlers.get('corral:getSession')!(ours, { id: 'x' })).toEqual({ ok: false, error: { code: 'unknown_session', message: 'no session with id "x"', field: 'id' } });
    expect(await handlers.get('corral:listSessions')!(ours, undefined)).toEqual({ ok: false, error: { code: 'internal', message: 'internal error (see the log)' } });
    expect(log).toHaveBeenCalledTimes(1);
    expect(await handlers.get('corral:getSession')!(ours, 'not an object')).toEqual({ ok: false, error: { code: 'bad_request', message: 'getSession takes one object' } });
  });

  it("knows its own page's URL", () => {
    expect(isAppUrl('file:///app/out/renderer/index.html', 'file:///app/out/renderer/index.html')).toBe(true);
    expect(isAppUrl('file:///app/out/renderer/index.html#x', 'file:///app/out/renderer/index.html')).toBe(true);
    expect(isAppUrl('file:///tmp/evil.html', 'file:///app/out/renderer/index.html')).toBe(false);
    expect(isAppUrl('https://app/out/renderer/index.html', 'file:///app/out/renderer/index.html')).toBe(false);
  });
});
