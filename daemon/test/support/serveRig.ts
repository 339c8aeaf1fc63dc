// A real `corral serve` (the built command) on a free port, with a rig's temp home, tmux
// socket and fake CLIs. Stopped and cleaned by the rig.

import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { makeRig, type Rig } from './rig';
import { CORRAL, daemonEnv, request, startServe } from './serve';

let built = false;
export function buildCli(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build.mjs', '--cli-only'], { stdio: 'inherit' });
  built = true;
}

export interface Served {
  rig: Rig;
  child: ChildProcess;
  url: string;
  /** The daemon's own local token (read-write). */
  token: string;
  output: () => string;
  env: NodeJS.ProcessEnv;
  /** Runs `corral …` against this home; never throws. */
  /** Runs `corral` against this daemon; `input` is its stdin (none by default). */
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv, cwd?: string, input?: string): { code: number; stdout: string; stderr: string };
  api(method: string, route: string, options?: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  ws(route: string, options?: { token?: string | null; origin?: string; protocols?: string[] }): WebSocket;
  stop(): Promise<number | null>;
}

export async function serveRig(extraArgs: string[] = [], rig?: Rig): Promise<Served> {
  buildCli();
  rig ??= await makeRig();
  const env = daemonEnv(rig);
  const { child, url, output, stop } = await startServe(env, extraArgs);
  const endpoint = JSON.parse(fs.readFileSync(path.join(rig.home, 'endpoint.json'), 'utf8')) as { token: string };
  const served: Served = {
    rig,
    child,
    url,
    token: endpoint.token,
    env,
    output,
    cli(args, extraEnv = {}, cwd, input) {
      // What it says on stderr is kept when it succeeds too.
      const run = spawnSync(process.execPath, [CORRAL, ...args], { env: { ...env, ...extraEnv }, cwd, encoding: 'utf8', input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
      if (run.error) throw run.error;
      return { code: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
    },
    api(method, route, options = {}) {
      return request(url, method, route, { ...options, token: options.token === undefined ? served.token : options.token });
    },
    ws(route, options = {}) {
      const token = options.token === undefined ? served.token : options.token;
      return new WebSocket(url.replace(/^http/, 'ws') + route, options.protocols ?? ['corral.v1'], {
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(options.origin ? { Origin: options.origin } : {}) },
      });
    },
    stop,
  };
  const cleanup = rig.cleanup;
  rig.cleanup = async () => {
    await served.stop();
    await cleanup();
  };
  return served;
}

/** Collects a stream's output and control messages. */
export function collect(ws: WebSocket): { text: () => string; messages: any[]; bytes: () => number; opened: Promise<void>; closed: Promise<{ code: number; reason: string }> } {
  let text = '';
  let bytes = 0;
  const messages: any[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      text += (data as Buffer).toString('utf8');
      bytes += (data as Buffer).length;
    } else messages.push(JSON.parse(data.toString()));
  });
  return {
    text: () => text,
    bytes: () => bytes,
    messages,
    opened: new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    }),
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
}
