// A real sshd on loopback for tests and the benchmark: Debian's /usr/sbin/sshd on a free port,
// with its own config, a throwaway host key and a key made for the test, in a temp folder. An
// ssh_config beside it names the server by an alias (CORRAL_SSH_CONFIG points a daemon at it),
// so nothing reads or writes a person's ~/.ssh.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './wait';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  /** The host alias of the ssh_config. */
  alias: string;
  port: number;
  /** The ssh_config to hand `ssh -F` (CORRAL_SSH_CONFIG). */
  config: string;
  root: string;
  /** Runs a command over a plain `ssh` to this server (for checks and the benchmark's bare echo). */
  ssh(args: string[]): ChildProcess;
  /** Stops sshd (its sessions go with it) and removes the temp folder. */
  stop(): Promise<void>;
}

export interface SshdOptions {
  /** PATH of the sessions sshd starts (sshd_config SetEnv), e.g. a folder without tmux. */
  path?: string;
  alias?: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startSshd(options: SshdOptions = {}): Promise<Sshd> {
  // sshd's privilege separation folder, which Debian's service would make at boot.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-sshd-'));
  const alias = options.alias ?? 'devbox';
  const hostKey = path.join(root, 'host_key');
  const userKey = path.join(root, 'user_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  const authorized = path.join(root, 'authorized_keys');
  fs.copyFileSync(`${userKey}.pub`, authorized);
  const port = await freePort();
  const sshdConfig = path.join(root, 'sshd_config');
  fs.writeFileSync(
    sshdConfig,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      `PidFile ${path.join(root, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'AllowTcpForwarding yes',
      'AllowStreamLocalForwarding yes',
      'PrintMotd no',
      'LogLevel ERROR',
      // Many tunnels and probes at once in the benchmark.
      'MaxStartups 100',
      'MaxSessions 100',
      ...(options.path ? [`SetEnv PATH=${options.path}`] : []),
      '',
    ].join('\n'),
  );
  const config = path.join(root, 'ssh_config');
  fs.writeFileSync(
    config,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${os.userInfo().username}`,
      `  IdentityFile ${userKey}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(root, 'known_hosts')}`,
      '  StrictHostKeyChecking accept-new',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (data: Buffer) => (log += data));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`sshd exited: ${log}`);
      return new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
    },
    'sshd to listen',
  );
  try {
    await listening;
  } catch (err) {
    child.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    alias,
    port,
    config,
    root,
    ssh: (args) => spawn('ssh', ['-F', config, '-o', 'BatchMode=yes', alias, ...args], { stdio: ['pipe', 'pipe', 'pipe'] }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
