// The contract over a real `corral serve`, from Node with the `ws` package: what the desktop app
// uses when a `corral serve` already holds the home (and what the browser uses, minus `ws`).

import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionChange } from '../contract/session';
import { createWebTransport, type SocketClass, type WebTransport } from '../contract/webTransport';
import { readEndpoint } from '../home/endpoint';
import { waitFor } from './support/wait';
import { serveRig, type Served } from './support/serveRig';

let s: Served;
let api: WebTransport;
beforeAll(async () => {
  s = await serveRig();
  const endpoint = readEndpoint(s.rig.home);
  if (!endpoint) throw new Error('corral serve wrote no endpoint file');
  api = createWebTransport(endpoint.url, endpoint.token, WebSocket as unknown as SocketClass);
});
afterAll(async () => {
  await s.rig.cleanup();
});

describe('the contract through corral serve’s API', () => {
  it('creates, streams, types, archives and restores, with changes pushed', async () => {
    const changes: SessionChange[] = [];
    const off = api.onSessionChange((change) => changes.push(change));
    const session = await api.createSession({ cli: 'faker', cwd: s.rig.home, name: 'from-the-app' });
    expect(session).toMatchObject({ name: 'from-the-app', state: 'running' });
    await waitFor(() => changes.some((c) => c.session.id === session.id && c.kind === 'added'), 'the added change');

    let seen = '';
    let bytes = 0;
    let closed: string | null = null;
    const decoder = new TextDecoder();
    const onData = (data: Uint8Array) => {
      bytes += data.byteLength;
      seen += decoder.decode(data, { stream: true });
    };
    const stream = api.openStream(session.id, { cols: 100, rows: 30 }, { onData, onClosed: ({ reason }) => (closed = reason) });
    await waitFor(() => seen.includes('FRESH START'), 'the replayed output');
    stream.write('over the wire\r');
    await waitFor(() => seen.includes('echo: over the wire'), 'the echo');
    stream.ack(bytes);

    expect((await api.archiveSession({ id: session.id })).archivedAt).toEqual(expect.any(Number));
    await waitFor(() => closed, 'the stream to close when the session stops');
    expect((await api.restoreSession({ id: session.id })).archivedAt).toBeNull();
    expect((await api.events({ id: session.id })).events.map((e) => e.kind)).toEqual(expect.arrayContaining(['archived', 'restored']));
    const refused = await api.getSession({ id: 'nope' }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 404, error: { code: 'unknown_session', field: 'id' } });
    off();
  });
});

describe('the link to the daemon, as a transport watches it', () => {
  it('goes down when the daemon stops, and up again when it is back', async () => {
    const first = await serveRig();
    try {
      // A token of the home's own (it outlives the daemon), as the desktop app's is.
      const token = first.cli(['token', 'create', 'watcher']).stdout.trim();
      const watcher = createWebTransport(first.url, token, WebSocket as unknown as SocketClass);
      const states: string[] = [];
      let hellos = 0;
      watcher.onLink((state) => states.push(state));
      watcher.onReconnect(() => hellos++);
      const off = watcher.onSessionChange(() => {});
      await waitFor(() => states.at(-1) === 'up', 'the link up');
      await first.stop();
      await waitFor(() => states.at(-1) === 'down', 'the link down');
      const again = await serveRig(['--port', new URL(first.url).port], first.rig);
      expect(again.url).toBe(first.url);
      await waitFor(() => states.at(-1) === 'up', 'the link up again');
      expect(states).toEqual(['up', 'down', 'up']);
      expect(hellos).toBe(2);
      off();
    } finally {
      await first.rig.cleanup();
    }
  });

  it('is refused, and not tried again, when the daemon no longer takes the credential', async () => {
    let sockets = 0;
    const Counting = class extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols);
        sockets++;
      }
    };
    const stale = createWebTransport(s.url, 'crl_' + 'x'.repeat(43), Counting as unknown as SocketClass);
    const states: string[] = [];
    stale.onLink((state) => states.push(state));
    const off = stale.onSessionChange(() => {});
    await waitFor(() => states.length > 0, 'a link state');
    expect(states).toEqual(['refused']);
    // A refused credential is final: what would connect again (a retry, another listener) makes no socket.
    const made = sockets;
    const offAgain = stale.onSessionChange(() => {});
    expect(sockets).toBe(made);
    offAgain();
    off();
  });
});
