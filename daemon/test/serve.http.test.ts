// The HTTP API of a real `corral serve`: every route, every error code, token scopes, and
// Host/Origin refusals. A rejected request changes nothing.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedKey } from './support/rig';
import { waitFor } from './support/wait';
import { serveRig, type Served } from './support/serveRig';

let s: Served;
let readOnly: string;

beforeAll(async () => {
  s = await serveRig();
  readOnly = s.cli(['token', 'create', 'viewer', '--read-only']).stdout.trim().split('\n').at(-1)!;
});
afterAll(async () => {
  await s.rig.cleanup();
});

/** The sessions as the API lists them, to prove a refusal changed nothing. */
// What a rejected request must leave untouched: the stored sessions (activity and git are live
// readings that change with the clock, not state a request could change).
const snapshot = async () =>
  JSON.stringify((await s.api('GET', '/api/sessions')).body.sessions.map(({ activity: _a, git: _g, ...stored }: Record<string, unknown>) => stored));

async function refused(
  method: string,
  route: string,
  status: number,
  code: string,
  options: Parameters<Served['api']>[2] = {},
): Promise<{ message: string; field?: string }> {
  const before = await snapshot();
  const launches = s.rig.launches().length;
  const res = await s.api(method, route, options);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(await snapshot()).toBe(before);
  expect(s.rig.launches()).toHaveLength(launches);
  return res.body.error;
}

/** Creates a session and waits until its fake has logged its launch: a refusal after it must add none. */
async function started(body: { cli: string; cwd: string; name: string }): Promise<string> {
  const before = s.rig.launches().length;
  const id = (await s.api('POST', '/api/sessions', { body })).body.id as string;
  await waitFor(() => s.rig.launches().length > before, `${body.name} to start`);
  return id;
}

describe('the HTTP API', () => {
  it('GET /healthz answers without a token', async () => {
    expect(await s.api('GET', '/healthz', { token: null })).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('every other route needs a valid token', async () => {
    const missing = await refused('GET', '/api/sessions', 401, 'unauthorized', { token: null });
    expect(missing.message).toBe('a token is needed: Authorization: Bearer crl_…');
    const bad = await refused('GET', '/api/clis', 401, 'unauthorized', { token: 'crl_not-a-real-token-at-all-000000' });
    expect(bad.message).toBe('that token is not valid (revoked, or never made)');
    expect(bad.message).not.toContain('crl_not');
    await refused('POST', '/api/sessions', 401, 'unauthorized', { token: null, body: { cli: 'faker', cwd: s.rig.home } });
  });

  it('the Authorization scheme is case-insensitive, and nothing but a bearer token is taken', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect((await s.api('GET', '/api/sessions', { token: null, headers: { Authorization: `${scheme} ${s.token}` } })).status, scheme).toBe(200);
    }
    for (const header of [`Basic ${s.token}`, `Bearer${s.token}`, `Bearer ${s.token} extra`]) {
      const res = await s.api('GET', '/api/sessions', { token: null, headers: { Authorization: header } });
      expect(res.status, header).toBe(401);
      // A valid token in the wrong form is not called invalid, and none of it is echoed.
      expect(res.body.error.message, header).toBe('the Authorization header is not read: it must be "Bearer " and one token (Authorization: Bearer crl_…)');
    }
  });

  it('GET /api/clis lists the catalogue with installed', async () => {
    const { body } = await s.api('GET', '/api/clis');
    const faker = body.clis.find((c: { name: string }) => c.name === 'faker');
    expect(faker).toMatchObject({ installed: true, resumable: true });
    expect(body.clis.find((c: { name: string }) => c.name === 'gemini')?.installed).toBe(false);
    expect(body.problems).toEqual([]);
  });

  it('a session through its whole life: create, look, type, stop, resume, rename, remove', async () => {
    const created = await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'api' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ name: 'api', cli: 'faker', cwd: s.rig.home, state: 'running', resumable: true, backend: 'tmux' });
    expect(Object.keys(created.body).sort()).toEqual(['activity', 'archivedAt', 'backend', 'cli', 'createdAt', 'cwd', 'git', 'id', 'lastActivityAt', 'lastExit', 'name', 'needsYou', 'promptWaiting', 'resumable', 'startedAt', 'state', 'usage', 'worktree']);
    // The key itself never leaves the daemon: no field carries it.
    expect(storedKey(s.rig, id)).toBe(id);
    expect((await s.api('GET', '/api/sessions')).body.sessions.map((x: { id: string }) => x.id)).toContain(id);

    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen?lines=5`)).body.text.includes('FRESH START'), 'the fresh start');
    expect((await s.api('POST', `/api/sessions/${id}/input`, { body: { text: 'over http\r' } })).status).toBe(200);
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('echo: over http'), 'the echo');

    const stopped = await s.api('POST', `/api/sessions/${id}/stop`);
    expect(stopped.body.state).toBe('stopped');
    expect((await s.api('GET', `/api/sessions/${id}/receipt`)).body.receipt).toMatchObject({ reason: 'stopped' });
    const started = await s.api('POST', `/api/sessions/${id}/start`);
    expect(started.body).toMatchObject({ resumed: true, session: { state: 'resuming' } });
    await waitFor(() => s.rig.launches().at(-1) === `faker resume ${id}`, 'the resume');

    expect((await s.api('PATCH', `/api/sessions/${id}`, { body: { name: 'renamed' } })).body.name).toBe('renamed');
    const kinds = (await s.api('GET', `/api/sessions/${id}/events`)).body.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['created', 'started', 'stopped', 'resuming', 'renamed']);

    const conflict = await refused('DELETE', `/api/sessions/${id}`, 409, 'conflict');
    expect(conflict.message).toBe('session "renamed" is running: stop it first, or remove it with force');
    expect((await s.api('DELETE', `/api/sessions/${id}?force=1`)).status).toBe(200);
    await refused('GET', `/api/sessions/${id}`, 404, 'unknown_session');
  });

  it('400 for malformed JSON, a bad field, an unknown field, and engine refusals, each named', async () => {
    expect((await refused('POST', '/api/sessions', 400, 'bad_json', { raw: '{"cli": "faker",', headers: { 'Content-Type': 'application/json' } })).message).toMatch(
      /^the body is not valid JSON: /,
    );
    expect(await refused('POST', '/api/sessions', 400, 'bad_request', { body: { cli: 42, cwd: s.rig.home } })).toEqual({
      code: 'bad_request',
      message: 'cli: Invalid input: expected string, received number',
      field: 'cli',
    });
    expect(await refused('POST', '/api/sessions', 400, 'bad_request', { body: { cli: 'faker', cwd: s.rig.home, command: 'rm -rf /' } })).toEqual({
      code: 'bad_request',
      message: 'unknown field: command',
      field: 'command',
    });
    // "__proto__" is a field like any other: refused, never the input's prototype (whose fields would be taken).
    expect(await refused('POST', '/api/sessions', 400, 'bad_request', { raw: JSON.stringify({ cli: 'faker', cwd: s.rig.home }).replace(/}$/, ',"__proto__":{"name":"pwned"}}'), headers: { 'Content-Type': 'application/json' } })).toEqual({
      code: 'bad_request',
      message: 'unknown field: __proto__',
      field: '__proto__',
    });
    expect(await refused('POST', '/api/sessions', 400, 'cwd_missing', { body: { cli: 'faker', cwd: '/no/such/folder' } })).toEqual({
      code: 'cwd_missing',
      message: 'the folder /no/such/folder does not exist',
      field: 'cwd',
    });
    await refused('POST', '/api/sessions', 400, 'unknown_cli', { body: { cli: 'nope', cwd: s.rig.home } });
    await refused('POST', '/api/sessions', 400, 'cli_not_installed', { body: { cli: 'gemini', cwd: s.rig.home } });
    const id = await started({ cli: 'faker', cwd: s.rig.home, name: 'victim' });
    await refused('PATCH', `/api/sessions/${id}`, 400, 'bad_name', { body: { name: '' } });
    await refused('GET', `/api/sessions/${id}/screen?lines=abc`, 400, 'bad_request');
    await refused('POST', `/api/sessions/${id}/input`, 400, 'bad_request', { body: { data: 'x' } });
    await refused('DELETE', `/api/sessions/${id}?force=yes`, 400, 'bad_request');
    await s.api('DELETE', `/api/sessions/${id}?force=1`);
  });

  it('404 for an unknown session or route, 405 for a wrong method, 413 for a body over 1 MiB', async () => {
    const ghost = '00000000-0000-0000-0000-000000000000';
    expect((await refused('POST', `/api/sessions/${ghost}/start`, 404, 'unknown_session')).message).toBe(`no session with id "${ghost}"`);
    expect((await refused('GET', '/api/nothing-here', 404, 'not_found')).message).toBe('no route GET /api/nothing-here');
    const res = await s.api('PUT', '/api/sessions');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    await refused('POST', '/api/sessions', 413, 'too_large', { raw: JSON.stringify({ cli: 'faker', cwd: s.rig.home, name: 'x'.repeat(1024 * 1024) }), headers: { 'Content-Type': 'application/json' } });
  });

  it('a read-only token can look but not change anything or type (403)', async () => {
    const id = await started({ cli: 'faker', cwd: s.rig.home, name: 'guarded' });
    expect((await s.api('GET', `/api/sessions/${id}`, { token: readOnly })).status).toBe(200);
    expect((await s.api('GET', `/api/sessions/${id}/screen`, { token: readOnly })).status).toBe(200);
    const denied = await refused('POST', `/api/sessions/${id}/input`, 403, 'forbidden', { token: readOnly, body: { text: 'x' } });
    expect(denied.message).toBe('token "viewer" is read-only: it cannot change anything, type, or read files');
    await refused('POST', `/api/sessions/${id}/stop`, 403, 'forbidden', { token: readOnly });
    await refused('DELETE', `/api/sessions/${id}?force=1`, 403, 'forbidden', { token: readOnly });
    await refused('POST', '/api/sessions', 403, 'forbidden', { token: readOnly, body: { cli: 'faker', cwd: s.rig.home } });
    // A file's contents and the tab strip are the writer's too.
    await refused('GET', `/api/sessions/${id}/preview?path=clis.toml`, 403, 'forbidden', { token: readOnly });
    await refused('POST', `/api/sessions/${id}/archive`, 403, 'forbidden', { token: readOnly });
    expect((await s.api('GET', `/api/sessions/${id}`)).body.state).toBe('running');
    await s.api('DELETE', `/api/sessions/${id}?force=1`);
  });

  it('previews a printed path, refuses a credential, and saves only with the version it read', async () => {
    // A folder of its own: Corral's home is refused to previews, whatever the session's folder.
    const project = path.join(path.dirname(s.rig.home), 'project');
    fs.mkdirSync(project, { recursive: true });
    const id = await started({ cli: 'faker', cwd: project, name: 'files' });
    fs.writeFileSync(path.join(project, 'notes.md'), 'one\ntwo\n');
    fs.writeFileSync(path.join(project, '.env.local'), 'TOKEN=1\n');
    const preview = await s.api('GET', `/api/sessions/${id}/preview?path=${encodeURIComponent('./notes.md:2')}`);
    expect(preview.body).toMatchObject({ kind: 'text', text: 'one\ntwo\n', line: 2 });
    expect((await s.api('GET', `/api/sessions/${id}/preview?path=.env.local`)).body).toMatchObject({ kind: 'refused' });
    // The daemon's own token, though it sits in the temp folder like the test's home.
    const endpoint = await s.api('GET', `/api/sessions/${id}/preview?path=${encodeURIComponent(path.join(s.rig.home, 'endpoint.json'))}`);
    expect(endpoint.body).toMatchObject({ kind: 'refused', reason: "this is Corral's own home (its tokens and database), which Corral never opens" });
    const blank = await refused('GET', `/api/sessions/${id}/preview`, 400, 'bad_request');
    expect(blank.field).toBe('path');
    const noVersion = await refused('POST', `/api/sessions/${id}/save`, 400, 'bad_request', { body: { path: 'notes.md', text: 'x' } });
    expect(noVersion.field).toBe('version');
    expect(fs.readFileSync(path.join(project, 'notes.md'), 'utf8')).toBe('one\ntwo\n');
    const saved = await s.api('POST', `/api/sessions/${id}/save`, { body: { path: 'notes.md', text: 'three\n', version: preview.body.version } });
    expect(saved.body).toMatchObject({ bytes: 6 });
    expect(fs.readFileSync(path.join(project, 'notes.md'), 'utf8')).toBe('three\n');
    await refused('POST', `/api/sessions/${id}/save`, 409, 'conflict', { body: { path: 'notes.md', text: 'stale\n', version: preview.body.version } });
    await s.api('DELETE', `/api/sessions/${id}?force=1`);
  });

  it('a request for another Host is refused (DNS rebinding), as is a foreign Origin', async () => {
    const port = new URL(s.url).port;
    const rebinding = await new Promise<{ status: number; body: string }>((resolve) => {
      // fetch() will not send a forged Host: use a raw request.
      import('node:http').then(({ request }) => {
        const req = request({ host: '127.0.0.1', port, path: '/api/sessions', headers: { Host: `attacker.example:${port}`, Authorization: `Bearer ${s.token}` } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.end();
      });
    });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body).error.code).toBe('bad_host');
    await refused('GET', '/api/sessions', 403, 'forbidden', { headers: { Origin: 'https://evil.example' } });
    expect((await s.api('GET', '/api/sessions', { headers: { Origin: s.url } })).status).toBe(200);
  });

  it('a revoked token stops working at once', async () => {
    const made = s.cli(['token', 'create', 'short-lived']);
    const secret = made.stdout.trim();
    expect((await s.api('GET', '/api/sessions', { token: secret })).status).toBe(200);
    const id = s.cli(['token', 'list']).stdout.split('\n').find((l) => l.includes('short-lived'))!.split(' ')[0]!;
    expect(s.cli(['token', 'revoke', id]).code).toBe(0);
    expect((await s.api('GET', '/api/sessions', { token: secret })).status).toBe(401);
  });
});

describe("an agent's own hook", () => {
  it('flags the session with the token it was started with; that token can do nothing else, and goes with the session', async () => {
    const dump = `${s.rig.home}/hook-env.txt`;
    s.rig.fake('hooked', `#!/bin/bash\nenv | grep ^CORRAL_ > '${dump}.tmp'; mv '${dump}.tmp' '${dump}'\nexec cat\n`);
    // The catalogue is read at start: add the CLI through a restart.
    (await import('node:fs')).appendFileSync(`${s.rig.home}/clis.toml`, '\n[cli.hooked]\ncommand = "hooked"\n');
    await s.stop();
    const again = await serveRig([], s.rig);
    s = again;
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'hooked', cwd: s.rig.home, name: 'hooked' } })).body.id;
    const fs = await import('node:fs');
    const env = Object.fromEntries(
      (await waitFor(() => (fs.existsSync(dump) ? fs.readFileSync(dump, 'utf8') : ''), 'the agent environment')).trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(env.CORRAL_URL).toBe(s.url);
    expect(env.CORRAL_SESSION_ID).toBe(id);
    const hook = env.CORRAL_SESSION_TOKEN!;
    expect(hook).toMatch(/^crl_/);

    const flagged = await s.api('POST', `/api/sessions/${id}/attention`, { token: hook, body: { message: 'Claude needs your permission to use Bash' } });
    expect(flagged.status).toBe(200);
    expect(flagged.body.needsYou).toMatchObject({ source: 'hook', detail: 'Claude needs your permission to use Bash' });
    // Typing answers it.
    await s.api('POST', `/api/sessions/${id}/input`, { body: { text: 'ok\r' } });
    expect((await s.api('GET', `/api/sessions/${id}`)).body.needsYou).toBeNull();

    // The hook's token can act on its own session only, and cannot type or stop.
    const other = await started({ cli: 'faker', cwd: s.rig.home, name: 'other' });
    await refused('POST', `/api/sessions/${other}/attention`, 403, 'forbidden', { token: hook });
    await refused('GET', `/api/sessions/${other}`, 403, 'forbidden', { token: hook });
    await refused('POST', `/api/sessions/${id}/input`, 403, 'forbidden', { token: hook, body: { text: 'x' } });
    await refused('POST', `/api/sessions/${id}/attention`, 403, 'forbidden', { token: readOnly });
    // Gone with the session.
    await s.api('DELETE', `/api/sessions/${id}?force=1`);
    expect((await s.api('GET', '/api/sessions', { token: hook })).status).toBe(401);
    await s.api('DELETE', `/api/sessions/${other}?force=1`);
  });
});
