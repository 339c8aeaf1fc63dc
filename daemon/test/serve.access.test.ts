// Who may do what, walked from the one table (daemon/server/access.ts): every route and every
// stream, for every kind of token, against a real `corral serve`, gets exactly what the table
// says. And a viewer who may only look never sizes the agent's pane.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { TmuxBackend } from '../backends/tmuxBackend';
import { ACCESS, refusal, type Endpoint, type Need } from '../auth/access';
import { ROUTES } from '../transports/http/routes';
import { SOCKETS } from '../transports/http/webSockets';
import { PROXY_HTTP, PROXY_WS } from '../transports/http/hostProxy';
import { makeRig } from './support/rig';
import { waitFor } from './support/wait';
import { collect, serveRig, type Served } from './support/serveRig';

let s: Served;
let A: string;
let B: string;
const tokens: Record<Kind, string | null> = { none: null, full: '', 'read-only': '', 'hook of A': '', 'hook of B': '' };
type Kind = 'none' | 'full' | 'read-only' | 'hook of A' | 'hook of B';
// Full last: what it is allowed to do (a resize) must not change what the others are checked against.
const KINDS: Kind[] = ['none', 'hook of B', 'hook of A', 'read-only', 'full'];

beforeAll(async () => {
  const rig = await makeRig();
  // An agent that leaves its hook environment where the test can read it, then echoes.
  rig.fake('hooked', `#!/bin/bash\nenv | grep ^CORRAL_ > '${rig.conversations}'/"$CORRAL_SESSION_ID.tmp"\nmv '${rig.conversations}'/"$CORRAL_SESSION_ID.tmp" '${rig.conversations}'/"$CORRAL_SESSION_ID.env"\nexec cat\n`);
  fs.appendFileSync(path.join(rig.home, 'clis.toml'), '\n[cli.hooked]\ncommand = "hooked"\n');
  s = await serveRig([], rig);
  const hookOf = async (name: string) => {
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'hooked', cwd: rig.home, name } })).body.id as string;
    const file = path.join(rig.conversations, `${id}.env`);
    const env = await waitFor(() => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''), `the hook environment of ${name}`);
    return { id, token: /^CORRAL_SESSION_TOKEN=(.*)$/m.exec(env)![1]! };
  };
  const a = await hookOf('A');
  const b = await hookOf('B');
  A = a.id;
  B = b.id;
  tokens.full = s.token;
  tokens['read-only'] = s.cli(['token', 'create', 'viewer', '--read-only']).stdout.trim();
  tokens['hook of A'] = a.token;
  tokens['hook of B'] = b.token;
});
afterAll(async () => {
  await s.rig.cleanup();
});

/** What the table promises, written out apart from the code that enforces it. */
function expected(need: Need, kind: Kind): 'allowed' | 401 | 403 {
  if (need === 'none') return 'allowed';
  if (kind === 'none') return 401;
  if (kind === 'full') return 'allowed';
  if (kind === 'read-only') return need === 'read' ? 'allowed' : 403;
  // Every probe names session A.
  return kind === 'hook of A' && need === 'own-session' ? 'allowed' : 403;
}

type Outcome = 'allowed' | 401 | 403;
/** A request per endpoint that, when allowed, is turned down later (a bad field) or only reads. */
type Probe = { path: string; body?: unknown } | ((kind: Kind) => Promise<Outcome>);
const bad = { bogus: 1 };
const PROBES: Record<Endpoint, Probe> = {
  'GET /healthz': { path: '/healthz' },
  'POST /api/auth/code': { path: '/api/auth/code', body: bad },
  'POST /api/auth/exchange': { path: '/api/auth/exchange', body: {} },
  'GET /api/clis': { path: '/api/clis' },
  'GET /api/sessions': { path: '/api/sessions' },
  'POST /api/sessions': { path: '/api/sessions', body: {} },
  'POST /api/sessions/order': { path: '/api/sessions/order', body: {} },
  'GET /api/folder': { path: '/api/folder?path=' },
  'GET /api/folders': { path: '/api/folders?path=relative' },
  'GET /api/sessions/:id': { path: '/api/sessions/:id' },
  'PATCH /api/sessions/:id': { path: '/api/sessions/:id', body: {} },
  'DELETE /api/sessions/:id': { path: '/api/sessions/:id?force=maybe' },
  'POST /api/sessions/:id/start': { path: '/api/sessions/:id/start', body: bad },
  'POST /api/sessions/:id/stop': { path: '/api/sessions/:id/stop', body: bad },
  'POST /api/sessions/:id/forget-key': { path: '/api/sessions/:id/forget-key', body: bad },
  'POST /api/sessions/:id/input': { path: '/api/sessions/:id/input', body: {} },
  'POST /api/sessions/:id/attention': { path: '/api/sessions/:id/attention', body: bad },
  'POST /api/sessions/:id/archive': { path: '/api/sessions/:id/archive', body: bad },
  'POST /api/sessions/:id/restore': { path: '/api/sessions/:id/restore', body: bad },
  'GET /api/sessions/:id/preview': { path: '/api/sessions/:id/preview' },
  'POST /api/sessions/:id/save': { path: '/api/sessions/:id/save', body: {} },
  'GET /api/sessions/:id/screen': { path: '/api/sessions/:id/screen' },
  'GET /api/usage': { path: '/api/usage' },
  'GET /api/sessions/:id/changes': { path: '/api/sessions/:id/changes' },
  'GET /api/sessions/:id/changes/diff': { path: '/api/sessions/:id/changes/diff' },
  'POST /api/sessions/:id/comments': { path: '/api/sessions/:id/comments', body: {} },
  'POST /api/sessions/:id/merge': { path: '/api/sessions/:id/merge', body: bad },
  'POST /api/sessions/:id/pull-request': { path: '/api/sessions/:id/pull-request', body: bad },
  'GET /api/sessions/:id/events': { path: '/api/sessions/:id/events' },
  'GET /api/sessions/:id/receipt': { path: '/api/sessions/:id/receipt' },
  'GET /api/hosts': { path: '/api/hosts' },
  'POST /api/hosts': { path: '/api/hosts', body: {} },
  'DELETE /api/hosts/:name': (kind) => askNoHost('DELETE', '/api/hosts/nowhere', kind),
  // No host of that name: allowed through the proxy's check, then not found.
  'ANY /api/hosts/:name/*': (kind) => askNoHost('POST', '/api/hosts/nowhere/api/sessions', kind),
  'WS /api/hosts/:name/*': async (kind) => {
    const ws = s.ws('/api/hosts/nowhere/api/events', { token: tokens[kind] });
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)));
    if (status === 401 || status === 403) return status;
    expect(status).toBe(404);
    return 'allowed';
  },
  'WS /api/events': (kind) => openStream('/api/events', kind).then((o) => o.outcome),
  'WS /api/sessions/:id/stream': (kind) => openStream(`/api/sessions/${A}/stream`, kind).then((o) => o.outcome),
  'WS /api/sessions/:id/stream input': async (kind) => {
    const opened = await openStream(`/api/sessions/${A}/stream`, kind);
    if (opened.outcome !== 'allowed') return opened.outcome;
    const mark = `typed by ${kind}`;
    opened.ws!.send(JSON.stringify({ type: 'input', data: `${mark}\r` }));
    const seen = await waitFor(() => opened.got!.messages.find((m) => m.type === 'error') ?? (opened.got!.text().includes(mark) && 'echo'), 'the input to be taken or refused');
    opened.ws!.close();
    if (seen === 'echo') return 'allowed';
    expect(seen.error.code).toBe('forbidden');
    return 403;
  },
  'WS /api/sessions/:id/stream resize': async (kind) => {
    const opened = await openStream(`/api/sessions/${A}/stream`, kind);
    if (opened.outcome !== 'allowed') return opened.outcome;
    const before = paneSize(A);
    const wanted = before === '77x19' ? '78x20' : '77x19';
    const [cols, rows] = wanted.split('x').map(Number);
    opened.ws!.send(JSON.stringify({ type: 'resize', cols, rows }));
    // Frames are handled in order: a refused input after it says the resize was handled (and ignored).
    opened.ws!.send(JSON.stringify({ type: 'input', data: '' }));
    await waitFor(() => paneSize(A) === wanted || opened.got!.messages.some((m) => m.type === 'error'), 'the resize to be handled');
    opened.ws!.close();
    return paneSize(A) === wanted ? 'allowed' : 403;
  },
};

async function askNoHost(method: string, route: string, kind: Kind): Promise<Outcome> {
  const res = await s.api(method, route, { token: tokens[kind] });
  if (res.status === 401 || res.status === 403) return res.status;
  expect(res.body.error.code).toBe('not_found');
  return 'allowed';
}

function paneSize(id: string): string {
  return execFileSync('tmux', ['-L', s.rig.socket, 'display-message', '-p', '-t', `=${TmuxBackend.sessionName(id)}:`, '#{window_width}x#{window_height}'], { encoding: 'utf8' }).trim();
}

async function openStream(route: string, kind: Kind, query = ''): Promise<{ outcome: Outcome; ws?: WebSocket; got?: ReturnType<typeof collect> }> {
  const ws = s.ws(route + query, { token: tokens[kind] });
  const got = collect(ws);
  const refused = new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)));
  const result = await Promise.race([got.opened.then(() => 'open' as const), refused]);
  if (result !== 'open') {
    expect([401, 403]).toContain(result);
    return { outcome: result as 401 | 403 };
  }
  await waitFor(() => got.messages.some((m) => m.type === 'hello'), `hello on ${route}`);
  return { outcome: 'allowed', ws, got };
}

async function probe(endpoint: Endpoint, kind: Kind): Promise<Outcome> {
  const p = PROBES[endpoint];
  if (typeof p === 'function') return p(kind);
  const [method] = endpoint.split(' ');
  const res = await s.api(method!, p.path.replace(':id', A), { token: tokens[kind], ...(p.body === undefined ? {} : { body: p.body }) });
  if (res.status === 401 || res.status === 403) return res.status;
  // Allowed, and then answered or turned down for its own reasons: never a missing route.
  expect([200, 201, 400], `${endpoint} as ${kind}: ${JSON.stringify(res.body)}`).toContain(res.status);
  return 'allowed';
}

describe('the access table', () => {
  it('names every route and every stream, and nothing else', () => {
    const served = [...ROUTES.map((r) => r.endpoint), ...SOCKETS.map((st) => st.endpoint), PROXY_HTTP, PROXY_WS].sort();
    const messages = Object.keys(ACCESS).filter((k) => /^WS \S+ \w+$/.test(k));
    expect([...served, ...messages].sort()).toEqual(Object.keys(ACCESS).sort());
    expect(Object.keys(PROBES).sort()).toEqual(Object.keys(ACCESS).sort());
    for (const route of ROUTES) expect(`${route.method} ${route.path}`).toBe(route.endpoint);
  });

  it('refuses what it does not name, even to a read-write token', () => {
    const full = { id: 'tok_x', name: 'x', scope: 'write' as const, sessionId: null, createdAt: 0, lastUsedAt: null };
    expect(refusal(full, 'POST /api/sessions/:id/new-thing', 'x')).toEqual({ code: 'forbidden', message: 'POST /api/sessions/:id/new-thing has no rule saying who may use it: refused' });
    expect(refusal(full, 'GET /api/sessions', undefined)).toBeNull();
  });

  for (const endpoint of Object.keys(ACCESS) as Endpoint[]) {
    it(`${endpoint} (${ACCESS[endpoint]}): every kind of token gets what the table says`, async () => {
      const got: Record<string, Outcome> = {};
      const want: Record<string, Outcome> = {};
      for (const kind of KINDS) {
        want[kind] = expected(ACCESS[endpoint], kind);
        got[kind] = await probe(endpoint, kind);
      }
      expect(got).toEqual(want);
      // The walk changed nothing: both sessions are still there and running.
      for (const id of [A, B]) expect((await s.api('GET', `/api/sessions/${id}`)).body.state).toBe('running');
    });
  }
});

describe('a viewer who may only look', () => {
  it("reads no file's text and no path's whereabouts: a changed file's diff and a folder's check are a writer's", async () => {
    for (const route of [`/api/sessions/${A}/changes/diff?path=README.md`, '/api/folder?path=/root/.ssh']) {
      const res = await s.api('GET', route, { token: tokens['read-only'] });
      expect(res.status, route).toBe(403);
      expect(res.body.error.message).toBe('token "viewer" is read-only: it cannot change anything, type, or read files');
    }
  });

  it('never sizes the pane: not by the size it connects with, nor by a resize, before or after a writer', async () => {
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'sized' } })).body.id as string;
    const launched = paneSize(id);
    const look = async () => {
      const viewer = await openStream(`/api/sessions/${id}/stream`, 'read-only', '?cols=30&rows=6');
      await waitFor(() => viewer.got!.text().length > 0, 'the screen');
      viewer.ws!.send(JSON.stringify({ type: 'resize', cols: 40, rows: 8 }));
      viewer.ws!.send(JSON.stringify({ type: 'input', data: 'x' }));
      // The refused input comes back after the resize was handled (quietly: it is the viewer's own view).
      await waitFor(() => viewer.got!.messages.some((m) => m.type === 'error'), 'the refused input');
      expect(viewer.got!.messages.filter((m) => m.type === 'error').map((m) => m.error.code)).toEqual(['forbidden']);
      viewer.ws!.close();
      await viewer.got!.closed;
    };
    await look();
    expect(paneSize(id)).toBe(launched);
    // A writer sizes it once the person uses it (the UI sends its size for the tab shown, or
    // types), not by connecting; a viewer after it still does not.
    const writer = await openStream(`/api/sessions/${id}/stream`, 'full', '?cols=101&rows=31');
    await waitFor(() => writer.got!.text().length > 0, "the writer's screen");
    expect(paneSize(id)).toBe(launched);
    writer.ws!.send(JSON.stringify({ type: 'resize', cols: 101, rows: 31 }));
    await waitFor(() => paneSize(id) === '101x31', 'the writer to size the pane');
    writer.ws!.close();
    await look();
    expect(paneSize(id)).toBe('101x31');
    await s.api('DELETE', `/api/sessions/${id}?force=1`);
  });
});
