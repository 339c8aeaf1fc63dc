// Figure 16: remote hosts. Several daemons, each with its own home and tmux socket and its own
// sessions, behind one real sshd on loopback (the tests' own: daemon/test/support/sshd.ts and
// remoteHost.ts), reached by one local `corral serve` through its links and proxy: the time
// to show every host's sessions from the moment the hosts are added, the local side's memory
// (the daemon and its ssh processes), and the echo of a key through the proxy and the tunnel
// against the echo of a bare `ssh` session to the same sshd.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FAKE_PROGRAMS, fakeCatalogue } from '../daemon/test/support/fakeClis';
import { startRemote, type RemoteHost } from '../daemon/test/support/remoteHost';
import { daemonEnv, request, startServe } from '../daemon/test/support/serve';
import { startSshd } from '../daemon/test/support/sshd';
import { killTmux } from '../daemon/test/support/tmux';
import { sleep } from '../daemon/test/support/wait';
import type { World } from '../daemon/test/support/world';
import { roundTrips } from './baselines';
import { rssMiB, Viewer, type Daemon } from './harness';
import type { Mode } from './report';

export const HOST_SIZES: Record<Mode, { hosts: number; sessions: number; keys: number }> = {
  full: { hosts: 10, sessions: 20, keys: 300 },
  quick: { hosts: 3, sessions: 5, keys: 100 },
  tiny: { hosts: 1, sessions: 2, keys: 10 },
};

export interface HostsFigures {
  showAllMs: number;
  /** When each link said it was connected, from adding the hosts, earliest first. */
  connectedMs: number[];
  /** Every host's list again, with the links up (what a page load asks). */
  listAgainMs: number;
  localMiB: number;
  localIdleMiB: number;
  sshProcesses: number;
  echo: number[];
  bareEcho: number[];
}

/**
 * The RSS of a process and of its children (the links' ssh processes, and its tmux backend's
 * `tmux wait-for`), and how many of the children are ssh.
 */
function treeMiB(pid: number): { mib: number; ssh: number } {
  let children: number[] = [];
  try {
    children = fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // none
  }
  const ssh = children.filter((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'ssh';
    } catch {
      return false; // gone meanwhile
    }
  });
  return { mib: rssMiB(pid) + children.reduce((sum, child) => sum + (rssMiB(child) || 0), 0), ssh: ssh.length };
}

/** `cleanups` holds, while it runs, what ends its daemons, sshd and tmux servers (a Ctrl-C calls it). */
export async function measureHosts(work: World, mode: Mode, cleanups: Set<() => Promise<void>>): Promise<HostsFigures> {
  const size = HOST_SIZES[mode];
  const sshd = await startSshd({ alias: 'bench' });
  const remotes: RemoteHost[] = [];
  // A home of its own each run: the last run's hosts (their daemons gone) are not this one's.
  const home = fs.mkdtempSync(path.join(work.root, 'home-hosts-local-'));
  const socket = `corral-bench-hosts-${process.pid}`;
  let local: Awaited<ReturnType<typeof startServe>> | null = null;
  const cleanup = async () => {
    await local?.stop();
    killTmux(socket);
    for (const remote of remotes) await remote.cleanup();
    await sshd.stop();
  };
  cleanups.add(cleanup);
  try {
    for (let i = 0; i < size.hosts; i++) {
      const remote = await startRemote({ sshd });
      remotes.push(remote);
      remote.world.fake('echoer', FAKE_PROGRAMS.echoer());
      fs.writeFileSync(path.join(remote.world.home, 'clis.toml'), fakeCatalogue(remote.world, ['faker', 'echoer']));
      // Each remote daemon starts as a link would start it, and is given its sessions.
      const endpoint = JSON.parse(execFileSync(remote.corral, ['endpoint'], { encoding: 'utf8' })) as { url: string; token: string };
      for (let n = 0; n < size.sessions; n++) {
        const made = await request(endpoint.url, 'POST', '/api/sessions', { token: endpoint.token, body: { cli: 'faker', cwd: remote.world.root, name: `s${n}` } });
        if (made.status !== 201) throw new Error(`a session on host ${i}: ${JSON.stringify(made.body)}`);
      }
    }
    local = await startServe({ ...daemonEnv({ env: work.env, home, socket }), CORRAL_SSH_CONFIG: sshd.config }, [], { timeoutMs: 120_000 });
    const url = local.url;
    const token = (JSON.parse(fs.readFileSync(path.join(home, 'endpoint.json'), 'utf8')) as { token: string }).token;
    const localIdleMiB = rssMiB(local.child.pid!);
    const names = remotes.map((_, i) => `h${i}`);
    const listAll = () =>
      Promise.all(
        names.map(async (name) => {
          const deadline = performance.now() + 120_000;
          while (performance.now() < deadline) {
            const res = await request(url, 'GET', `/api/hosts/${name}/api/sessions`, { token });
            if (res.status === 200 && res.body.sessions.length === size.sessions) return;
            await sleep(20);
          }
          const hosts = (await request(url, 'GET', '/api/hosts', { token })).body?.hosts as { name: string; state: string; message?: string }[] | undefined;
          const host = hosts?.find((h) => h.name === name);
          throw new Error(`host ${name}'s sessions were not all listed within 120 s (${host?.state ?? 'not listed'}: ${host?.message ?? ''})`);
        }),
      );

    const started = performance.now();
    // When each link connects, looked at every 20 ms while the lists are read.
    const connectedAt = new Map<string, number>();
    let listed = false;
    const watching = (async () => {
      while (!listed) {
        const res = await request(url, 'GET', '/api/hosts', { token });
        for (const host of (res.body?.hosts ?? []) as { name: string; state: string }[]) if (host.state === 'connected' && !connectedAt.has(host.name)) connectedAt.set(host.name, performance.now() - started);
        await sleep(20);
      }
    })();
    await Promise.all(remotes.map((remote, i) => request(url, 'POST', '/api/hosts', { token, body: { name: names[i], target: sshd.alias, corral: remote.corral } })));
    await listAll();
    const showAllMs = performance.now() - started;
    listed = true;
    await watching;
    const connectedMs = [...connectedAt.values()].sort((a, b) => a - b);
    const again = performance.now();
    await listAll();
    const listAgainMs = performance.now() - again;
    const tree = treeMiB(local.child.pid!);

    // A key's echo through the proxy and the tunnel, as a tab's terminal gets it.
    const onHost = { url: `${url}/api/hosts/${names[0]}`, token } as Daemon;
    const { id } = (await request(onHost.url, 'POST', '/api/sessions', { token, body: { cli: 'echoer', cwd: remotes[0]!.world.root, name: 'echo' } })).body as { id: string };
    const viewer = new Viewer(onHost, id, { keep: false });
    await viewer.opened();
    await sleep(500);
    const echo = await roundTrips(size.keys, () => viewer.send('a'), (resolve) => (viewer.onChunk = resolve));
    viewer.close();

    // The same key over a bare ssh session with a terminal of its own on the same sshd.
    const bare = spawn('ssh', ['-F', sshd.config, '-o', 'BatchMode=yes', '-tt', sshd.alias, 'stty -icanon; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let onEcho: (() => void) | null = null;
    let seen = '';
    bare.stdout!.on('data', (data: Buffer) => {
      seen += data.toString();
      if (onEcho && seen.includes('a')) {
        seen = '';
        const done = onEcho;
        onEcho = null;
        done();
      }
    });
    // Its prompt-less start: a first key echoed says the terminal is set.
    await roundTrips(3, () => bare.stdin!.write('a'), (resolve) => (onEcho = resolve));
    const bareEcho = await roundTrips(size.keys, () => bare.stdin!.write('a'), (resolve) => (onEcho = resolve));
    bare.kill('SIGKILL');
    return { showAllMs, connectedMs, listAgainMs, localMiB: tree.mib, localIdleMiB, sshProcesses: tree.ssh, echo, bareEcho };
  } finally {
    cleanups.delete(cleanup);
    await cleanup();
  }
}
