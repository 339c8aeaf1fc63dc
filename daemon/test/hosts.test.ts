// Sessions on a remote host over real SSH: a real sshd on loopback, a second home and tmux
// socket as the remote, reached by the local `corral serve` through its link (probe, `corral
// endpoint`, tunnel) and its proxy at /api/hosts/NAME/.

import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { makeRig } from './support/rig';
import { startRemote, type RemoteHost } from './support/remoteHost';
import { CORRAL } from './support/serve';
import { collect, serveRig, type Served } from './support/serveRig';
import { waitFor } from './support/wait';

let local: Served;
let remote: RemoteHost;
let id: string;

beforeAll(async () => {
  remote = await startRemote();
  const rig = await makeRig();
  // The daemon's ssh_config: devbox's now, another host's appended later (ssh reads it at each run).
  rig.env.CORRAL_SSH_CONFIG = path.join(rig.root, 'ssh_config');
  fs.copyFileSync(remote.sshd.config, rig.env.CORRAL_SSH_CONFIG);
  local = await serveRig([], rig);
});
afterAll(async () => {
  await local?.rig.cleanup();
  await remote?.cleanup();
});

/** The local events stream's host frames, as they come. */
function hostFrames(ws: WebSocket): { name: string; state: string }[] {
  const frames: { name: string; state: string }[] = [];
  ws.on('message', (data, isBinary) => {
    const frame = isBinary ? null : JSON.parse(data.toString());
    if (frame?.type === 'host') frames.push({ name: frame.host.name, state: frame.host.state });
  });
  return frames;
}

/** The pid of the ssh that holds a host's connection and tunnel (the master: its control socket's path is on its command line). */
function tunnelPid(name: string): number | null {
  const control = path.join(local.rig.home, 'hosts', `${name}.ctl`);
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  const line = lines.find((l) => l.includes(`-M -S ${control} `));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

/** A new viewer of the remote session: what it got, once its screen has `text`. */
async function viewUntil(text: string) {
  const ws = local.ws(onDevbox(`/api/sessions/${id}/stream?cols=100&rows=30`));
  const got = collect(ws);
  await got.opened;
  await waitFor(() => got.text().includes(text), `"${text}" on the remote screen`);
  return { ws, got };
}

/**
 * `corral …` against the local daemon, as a child process that does not block this one (a
 * blocking one holds up the HTTP client's timers, which then reuse a connection the daemon closed).
 */
function corral(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CORRAL, ...args], { env: local.env, encoding: 'utf8' }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

const hostState = async (name: string) => ((await local.api('GET', '/api/hosts')).body.hosts as { name: string; state: string }[]).find((h) => h.name === name);
const onDevbox = (route: string) => `/api/hosts/devbox${route}`;

describe('a remote host', () => {
  it('is added, linked over ssh, and runs a session that is typed into and seen through this daemon', async () => {
    const added = await local.api('POST', '/api/hosts', { body: { name: 'devbox', target: remote.sshd.alias, corral: remote.corral } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'devbox', target: 'devbox', state: 'connecting' });
    await waitFor(async () => (await hostState('devbox'))?.state === 'connected', 'devbox to be connected', 30_000);

    const made = await local.api('POST', onDevbox('/api/sessions'), { body: { cli: 'faker', cwd: remote.world.root, name: 'far away' } });
    expect(made.status).toBe(201);
    id = made.body.id as string;
    // It is the remote home's session, not this one's.
    expect((await local.api('GET', '/api/sessions')).body.sessions).toEqual([]);
    // Its agent runs there: the create replies once the pane is made, and the agent logs its launch as it starts.
    await waitFor(() => remote.world.launches().length > 0, 'the launch on the remote host');

    const ws = local.ws(onDevbox(`/api/sessions/${id}/stream?cols=100&rows=30`));
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.text().includes('FRESH START'), 'the remote screen');
    ws.send(JSON.stringify({ type: 'input', data: 'over ssh\r' }));
    await waitFor(() => got.text().includes('echo: over ssh'), 'the echo through the tunnel');
    ws.close();
    await got.closed;
  });

  it('keeps its tunnel on a unix socket only this user can open, and no TCP port', () => {
    const socket = path.join(local.rig.home, 'hosts', 'devbox.sock');
    const stat = fs.statSync(socket);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it('says reconnecting when the ssh tunnel is killed mid-stream, comes back, and nothing is lost', async () => {
    const events = local.ws('/api/events');
    const frames = hostFrames(events);
    await collect(events).opened;
    const { ws, got } = await viewUntil('echo: over ssh');
    const pid = tunnelPid('devbox');
    expect(pid).not.toBeNull();
    process.kill(pid!, 'SIGKILL');
    // The stream through the dropped tunnel is closed: the viewer knows, and opens it again.
    await got.closed;
    await waitFor(() => frames.some((f) => f.name === 'devbox' && f.state === 'reconnecting'), 'reconnecting devbox on the events stream');
    await waitFor(() => frames.findLastIndex((f) => f.state === 'connected') > frames.findIndex((f) => f.state === 'reconnecting'), 'devbox connected again', 30_000);
    expect(tunnelPid('devbox')).not.toBe(pid);
    const again = await viewUntil('echo: over ssh');
    again.ws.send(JSON.stringify({ type: 'input', data: 'after the drop\r' }));
    await waitFor(() => again.got.text().includes('echo: after the drop'), 'the echo after the drop');
    // The agent itself never stopped.
    expect((await local.api('GET', onDevbox(`/api/sessions/${id}`))).body).toMatchObject({ state: 'running', lastExit: null });
    again.ws.close();
    ws.close();
    events.close();
  });

  it('follows a remote daemon that stopped: it is started again there, and its sessions are still running', async () => {
    const before = remote.endpoint()!;
    const events = local.ws('/api/events');
    const frames = hostFrames(events);
    await collect(events).opened;
    await remote.stopDaemon();
    await waitFor(() => frames.some((f) => f.state === 'reconnecting'), 'reconnecting devbox', 20_000);
    await waitFor(async () => (await hostState('devbox'))?.state === 'connected', 'devbox connected again', 30_000);
    const after = remote.endpoint()!;
    expect(after.pid).not.toBe(before.pid);
    const { ws, got } = await viewUntil('echo: after the drop');
    ws.send(JSON.stringify({ type: 'input', data: 'to the new daemon\r' }));
    await waitFor(() => got.text().includes('echo: to the new daemon'), 'the echo through the new daemon');
    ws.close();
    events.close();
  });

  it('is driven from the command line: hosts ls, ls --host, new --host, send and peek HOST/ID', async () => {
    const hosts = await corral(['hosts', 'ls']);
    expect(hosts.stdout).toMatch(/^devbox\s+devbox\s+connected$/m);
    expect((await corral(['ls', '--host', 'devbox'])).stdout).toContain('far away');
    expect((await corral(['ls'])).stdout).toContain('no sessions');
    expect((await corral(['send', `devbox/${id.slice(0, 8)}`, 'from', 'the', 'cli'])).code).toBe(0);
    await waitFor(async () => (await corral(['peek', `devbox/${id}`])).stdout.includes('echo: from the cli'), 'the echo in peek');
    const made = await corral(['new', '--host', 'devbox', '--cli', 'faker', '--cwd', remote.world.root, '--name', 'made by cli']);
    expect(made.code).toBe(0);
    expect((await corral(['ls', '--host', 'devbox'])).stdout).toContain('made by cli');
  });

  it('a name with a slash is a session here unless its first part is a host, when the id must tell them apart', async () => {
    const made = (name: string) => local.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: local.rig.home, name } });
    const team = (await made('team/api')).body.id as string;
    const clash = (await made('devbox/made by cli')).body.id as string;
    try {
      expect(await corral(['send', 'team/api', 'slashed'])).toMatchObject({ code: 0 });
      await waitFor(async () => (await corral(['peek', 'team/api'])).stdout.includes('echo: slashed'), 'the echo of the session named team/api');
      const refused = await corral(['peek', 'devbox/made by cli']);
      expect(refused).toMatchObject({ code: 1 });
      expect(refused.stderr).toBe(`corral peek: "devbox/made by cli" is both a session here and session "made by cli" on host devbox; give the id (${clash.slice(0, 8)} here)\n`);
      // No name here to mistake it for: the host's.
      expect((await corral(['peek', `devbox/${id.slice(0, 8)}`])).stdout).toContain('echo: from the cli');
    } finally {
      for (const sid of [team, clash]) expect((await local.api('DELETE', `/api/sessions/${sid}?force=1`)).status).toBe(200);
    }
  });

  it('refuses a name or target that is not one, naming the field', async () => {
    const bad = async (body: unknown) => (await local.api('POST', '/api/hosts', { body })).body.error;
    expect(await bad({ name: 'Dev Box', target: 'devbox' })).toMatchObject({ code: 'bad_request', field: 'name' });
    expect(await bad({ name: 'two', target: '-oProxyCommand=touch /tmp/x' })).toMatchObject({ code: 'bad_request', field: 'target' });
    expect(await bad({ name: 'two', target: 'me@devbox:70000' })).toMatchObject({ code: 'bad_request', field: 'target', message: 'target: the port must be 1 to 65535' });
    expect(await bad({ name: 'two', target: 'devbox', corral: 'corral; rm -rf ~' })).toMatchObject({ code: 'bad_request', field: 'corral' });
    expect(await bad({ name: 'local', target: 'devbox' })).toMatchObject({ code: 'bad_name', field: 'name' });
    expect(await bad({ name: 'devbox', target: 'elsewhere' })).toMatchObject({ code: 'conflict', field: 'name' });
    expect((await corral(['hosts', 'add', 'devbox'])).code).toBe(2);
  });
});

describe('a host whose daemon is hostile', () => {
  it("passes on neither its redirects nor its cookies: nothing it answers reaches this machine's own API", async () => {
    const here = (await local.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: local.rig.home, name: 'at home' } })).body.id as string;
    // A daemon that sends each request on to this machine's API, and sets a cookie for 127.0.0.1.
    const server = http.createServer((req, res) => {
      res.setHeader('Set-Cookie', 'taken=1; Path=/');
      if (req.url === '/healthz') return res.end('{"ok":true}');
      if (req.method === 'POST') return res.writeHead(307, { Location: `/api/sessions/${here}/input` }).end();
      if (req.url!.includes('/screen')) return res.writeHead(302, { Location: `/api/sessions/${here}/screen` }).end();
      res.setHeader('Content-Type', 'application/json');
      res.end('{"sessions":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const hostile = path.join(local.rig.root, 'hostile-corral');
    fs.writeFileSync(hostile, `#!/bin/sh\necho '{"protocol":1,"url":"http://127.0.0.1:${port}","token":"any"}'\n`, { mode: 0o755 });
    try {
      expect((await local.api('POST', '/api/hosts', { body: { name: 'evil', target: remote.sshd.alias, corral: hostile } })).status).toBe(201);
      await waitFor(async () => (await hostState('evil'))?.state === 'connected', 'evil to be connected', 30_000);
      const listed = await local.api('GET', '/api/hosts/evil/api/sessions');
      expect(listed).toMatchObject({ status: 200, body: { sessions: [] } });
      expect(listed.headers.get('set-cookie')).toBeNull();
      const sent = await local.api('POST', '/api/hosts/evil/api/sessions/abc/input', { body: { text: 'SENT ON\r' } });
      expect(sent.status).toBe(503);
      expect(sent.body.error).toMatchObject({ code: 'host_unreachable', message: 'host evil answered with a 307, which Corral does not pass on: nothing more was sent' });
      expect(sent.headers.get('location')).toBeNull();
      expect((await local.api('GET', '/api/hosts/evil/api/sessions/abc/screen')).status).toBe(503);
      expect((await local.api('GET', `/api/sessions/${here}/screen`)).body.text).not.toContain('SENT ON');
    } finally {
      await local.api('DELETE', '/api/hosts/evil');
      await local.api('DELETE', `/api/sessions/${here}?force=1`);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a host that never answers', () => {
  it('holds up nothing else: this machine\'s sessions are made and listed while it is still connecting, and it is removed', async () => {
    // Takes the connection and never says a word: ssh waits for a banner that does not come.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      expect((await local.api('POST', '/api/hosts', { body: { name: 'silent', target: `127.0.0.1:${port}` } })).status).toBe(201);
      const made = await local.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: local.rig.home, name: 'here meanwhile' } });
      expect(made.status).toBe(201);
      expect((await local.api('GET', '/api/sessions')).body.sessions.map((s: { name: string }) => s.name)).toContain('here meanwhile');
      expect(await hostState('silent')).toMatchObject({ state: 'connecting' });
      const refused = await local.api('GET', '/api/hosts/silent/api/sessions');
      expect(refused.body.error).toMatchObject({ code: 'host_unreachable', message: 'host silent is connecting; nothing was sent' });
      expect((await local.api('DELETE', '/api/hosts/silent')).status).toBe(200);
      expect(await hostState('silent')).toBeUndefined();
    } finally {
      silent.close();
    }
  });
});

describe('a host without tmux', () => {
  let bare: RemoteHost;
  let bin: string;

  beforeAll(async () => {
    // The sessions sshd starts there find sh and node, and nothing else of what Corral needs.
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-bare-bin-'));
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    fs.symlinkSync('/bin/sh', path.join(bin, 'sh'));
    bare = await startRemote({ alias: 'bare', path: bin });
  });
  afterAll(async () => {
    await local.api('DELETE', '/api/hosts/bare');
    await bare?.cleanup();
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it('is told exactly what is missing and the command that installs it, and refuses what is sent to it', async () => {
    // The sshd of this host is another one: its alias goes through a config of its own.
    fs.appendFileSync(local.env.CORRAL_SSH_CONFIG!, `\n${fs.readFileSync(bare.sshd.config, 'utf8')}`);
    expect((await local.api('POST', '/api/hosts', { body: { name: 'bare', target: 'bare', corral: bare.corral } })).status).toBe(201);
    const host = await waitFor(async () => {
      const found = (await local.api('GET', '/api/hosts')).body.hosts.find((h: { name: string }) => h.name === 'bare');
      return found?.state === 'missing' ? found : null;
    }, 'bare to be missing something', 30_000);
    expect(host.missing).toEqual([{ what: 'tmux', install: 'sudo apt-get install tmux' }]);
    expect(host.message).toBe('tmux is not installed on bare: sudo apt-get install tmux');
    expect((await corral(['hosts', 'ls'])).stdout).toContain('tmux is not installed on bare: sudo apt-get install tmux');
    // Typing (or anything else) while the link is down is refused, never queued.
    const typed = await local.api('POST', '/api/hosts/bare/api/sessions/x/input', { body: { text: 'lost?' } });
    expect(typed.status).toBe(503);
    expect(typed.body.error.code).toBe('host_unreachable');
    expect(typed.body.error.message).toMatch(/^host bare is missing what Corral needs there: tmux is not installed on bare/);
    // The connection its probe went through ends with the attempt: no ssh and no socket is left until the next try.
    await waitFor(() => tunnelPid('bare') === null && !fs.existsSync(path.join(local.rig.home, 'hosts', 'bare.ctl')), "the failed attempt's ssh connection to end");
  }, 60_000);
});
