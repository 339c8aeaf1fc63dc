import { describe, expect, it, vi } from 'vitest';
import type { ClientApi } from '../../daemon/contract/contract';
import { CorralError } from '../../daemon/contract/errors';
import { METHOD_NAMES } from '../../daemon/contract/contract';
import { CHANNEL, isAppUrl, registerIpc, type InvokeEvent } from '../ipc';

function fakeIpc() {
  const handlers = new Map<string, (event: InvokeEvent, req: unknown) => Promise<unknown>>();
  const listeners = new Map<string, (event: InvokeEvent & { returnValue?: unknown }) => void>();
  return {
    handlers,
    listeners,
    ipcMain: {
      handle: (channel: string, listener: (event: InvokeEvent, req: unknown) => Promise<unknown>) => handlers.set(channel, listener),
      on: (channel: string, listener: (event: InvokeEvent & { returnValue?: unknown }) => void) => listeners.set(channel, listener),
    },
  };
}

const ours = { sender: 'our-window', senderFrame: { url: 'file:///app/out/renderer/index.html' } };
const theirs = { sender: 'a-webview', senderFrame: { url: 'https://evil.example/' } };

describe('the IPC adapter', () => {
  it('registers one channel per method of the contract, and no other', () => {
    const { handlers, ipcMain } = fakeIpc();
    registerIpc(ipcMain, () => ({}) as ClientApi, () => true);
    expect([...handlers.keys()].sort()).toEqual(METHOD_NAMES.map((m) => `corral:${m}`).sort());
    expect(CHANNEL('startSession')).toBe('corral:startSession');
  });

  it('names the methods to our own window (the preload makes one function of each), and to no other', () => {
    const { listeners, ipcMain } = fakeIpc();
    registerIpc(ipcMain, () => ({}) as ClientApi, (event) => event.sender === 'our-window');
    const ask = (event: InvokeEvent) => {
      const e: InvokeEvent & { returnValue?: unknown } = { ...event };
      listeners.get('corral:methods')!(e);
      return e.returnValue;
    };
    expect(ask(ours)).toEqual(METHOD_NAMES);
    expect(ask(theirs)).toEqual([]);
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
  });

  it("checks each request against its method's schema before the engine sees it", async () => {
    const { handlers, ipcMain } = fakeIpc();
    const renameSession = vi.fn(async () => ({ id: 'x' }));
    registerIpc(ipcMain, () => ({ renameSession }) as unknown as ClientApi, () => true);
    expect(await handlers.get('corral:renameSession')!(ours, 'not an object')).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringMatching(/^the request: .*object/) } });
    expect(await handlers.get('corral:renameSession')!(ours, { id: 'x', name: 7 })).toMatchObject({ ok: false, error: { code: 'bad_request', field: 'name' } });
    expect(await handlers.get('corral:renameSession')!(ours, { id: 'x', name: 'n', extra: 1 })).toEqual({ ok: false, error: { code: 'bad_request', message: 'unknown field: extra', field: 'extra' } });
    expect(renameSession).not.toHaveBeenCalled();
    expect(await handlers.get('corral:renameSession')!(ours, { id: 'x', name: 'n' })).toEqual({ ok: true, value: { id: 'x' } });
    expect(renameSession).toHaveBeenCalledWith({ id: 'x', name: 'n' });
  });

  it("knows its own page's URL", () => {
    expect(isAppUrl('file:///app/out/renderer/index.html', 'file:///app/out/renderer/index.html')).toBe(true);
    expect(isAppUrl('file:///app/out/renderer/index.html#x', 'file:///app/out/renderer/index.html')).toBe(true);
    expect(isAppUrl('file:///tmp/evil.html', 'file:///app/out/renderer/index.html')).toBe(false);
    expect(isAppUrl('https://app/out/renderer/index.html', 'file:///app/out/renderer/index.html')).toBe(false);
  });
});
