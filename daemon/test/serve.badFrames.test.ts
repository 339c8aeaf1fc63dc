// A bad WebSocket frame closes that one connection with the code the protocol names, is
// logged once without secrets, and never takes the daemon down, whoever holds the token.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { waitFor } from './support/wait';
import { collect, serveRig, type Served } from './support/serveRig';

let s: Served;
let readOnly: string;
let id: string;

beforeAll(async () => {
  s = await serveRig();
  readOnly = s.cli(['token', 'create', 'viewer', '--read-only']).stdout.trim();
  id = (await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'target' } })).body.id;
});
afterAll(async () => {
  await s.rig.cleanup();
});

const BAD_FRAMES: { what: string; code: number; send(ws: WebSocket): void }[] = [
  { what: 'a frame over 1 MiB', code: 1009, send: (ws) => ws.send(Buffer.alloc(1024 * 1024 + 1, 0x61)) },
  // ws lets a client leave its frame unmasked when told to: exactly what a hostile peer sends.
  { what: 'an unmasked frame', code: 1002, send: (ws) => ws.send('{"type":"ack","bytes":1}', { mask: false }) },
  { what: 'invalid UTF-8 in a text frame', code: 1007, send: (ws) => ws.send(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), { binary: false }) },
];

const logLines = () => s.output().split('\n').filter((line) => line.includes('closed a WebSocket'));

describe('a bad WebSocket frame', () => {
  for (const frame of BAD_FRAMES) {
    for (const route of ['/api/events', 'stream'] as const) {
      it(`${frame.what} on ${route} from a read-only token closes that connection (${frame.code}); the daemon goes on`, async () => {
        const path = route === 'stream' ? `/api/sessions/${id}/stream` : route;
        const before = logLines().length;
        const ws = s.ws(path, { token: readOnly });
        const got = collect(ws);
        ws.on('error', () => {}); // the client may see the close as an error of its own
        await got.opened;
        await waitFor(() => got.messages.some((m) => m.type === 'hello'), 'hello');
        frame.send(ws);
        expect((await got.closed).code).toBe(frame.code);

        expect((await s.api('GET', '/healthz', { token: null })).status).toBe(200);
        expect((await s.api('GET', '/api/sessions')).status).toBe(200);
        // Other viewers are not touched.
        const next = collect(s.ws('/api/events'));
        await next.opened;
        await waitFor(() => next.messages.some((m) => m.type === 'hello'), 'a new viewer to be served');
        const lines = await waitFor(() => (logLines().length > before ? logLines().slice(before) : null), 'the log line');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(path);
        for (const secret of [readOnly, s.token]) expect(s.output()).not.toContain(secret);
      });
    }
  }

  it('a raw socket that resets once answered (upgraded, or refused) does not take the daemon down', async () => {
    const { port } = new URL(s.url);
    for (const [auth, answer] of [[readOnly, 'HTTP/1.1 101'], ['crl_wrong', 'HTTP/1.1 401']] as const) {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      // Reset the moment the answer arrives, while the daemon still holds its end open.
      const heard = new Promise<string>((resolve) =>
        socket.once('data', (d) => {
          socket.resetAndDestroy();
          resolve(d.toString());
        }),
      );
      socket.write(
        `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: corral.v1\r\nAuthorization: Bearer ${auth}\r\n\r\n`,
      );
      expect(await heard).toMatch(new RegExp(`^${answer}`));
      expect((await s.api('GET', '/healthz', { token: null })).status).toBe(200);
    }
  });
});
