// A remote host for tests and the benchmark: a real sshd on loopback (sshd.ts) and a second
// Corral home and tmux socket behind it, with its own fake CLIs. The remote `corral` is a
// wrapper that points the built command at that home; the host is added with it as its corral
// command. Whatever daemon a link starts there is stopped by `cleanup`.

import fs from 'node:fs';
import path from 'node:path';
import { startSshd, type Sshd, type SshdOptions } from './sshd';
import { CORRAL } from './serve';
import { waitFor } from './wait';
import { makeWorld, type World } from './world';

export interface RemoteHost {
  sshd: Sshd;
  world: World;
  /** The remote corral command (the wrapper). */
  corral: string;
  /** The endpoint the remote daemon wrote, while one runs. */
  endpoint(): { url: string; pid: number; token: string } | null;
  /** Stops the remote daemon (its agents stay in its tmux) and waits until it is gone. */
  stopDaemon(): Promise<void>;
  cleanup(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startRemote(options: SshdOptions & { sshd?: Sshd } = {}): Promise<RemoteHost> {
  const world = makeWorld('remote', { programs: ['faker', 'agent'], clis: ['faker', 'agent'] });
  const corral = path.join(world.root, 'corral');
  const env = Object.entries({ CORRAL_HOME: world.home, CORRAL_TMUX_SOCKET: world.socket, PATH: `${world.bin}:$PATH`, CLAUDE_CONFIG_DIR: world.env.CLAUDE_CONFIG_DIR, CODEX_HOME: world.env.CODEX_HOME, GEMINI_CLI_HOME: world.env.GEMINI_CLI_HOME });
  fs.writeFileSync(corral, `#!/bin/sh\n${env.map(([k, v]) => `export ${k}="${v}"`).join('\n')}\nexec ${process.execPath} ${CORRAL} "$@"\n`, { mode: 0o755 });
  const sshd = options.sshd ?? (await startSshd(options));
  const endpoint = () => {
    try {
      const found = JSON.parse(fs.readFileSync(path.join(world.home, 'endpoint.json'), 'utf8')) as { url: string; pid: number; token: string };
      return alive(found.pid) ? found : null;
    } catch {
      return null;
    }
  };
  const stopDaemon = async () => {
    const running = endpoint();
    if (!running) return;
    process.kill(running.pid, 'SIGTERM');
    await waitFor(() => !alive(running.pid), 'the remote daemon to stop', 20_000);
  };
  return {
    sshd,
    world,
    corral,
    endpoint,
    stopDaemon,
    async cleanup() {
      await stopDaemon();
      if (!options.sshd) await sshd.stop();
      world.cleanup();
    },
  };
}
