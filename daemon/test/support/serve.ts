// Starting and stopping a real `corral serve` (the built command) for a test, a browser test or
// the benchmark. It is ready when it prints the address it serves at.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The built command; tests, browser tests and the benchmark all run from the repository's root. */
export const CORRAL = path.resolve('out/cli/corral.cjs');

/** The environment of a daemon for this home and tmux socket, never one a person's shell points at. */
export function daemonEnv(place: { env: NodeJS.ProcessEnv; home: string; socket: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...place.env, CORRAL_HOME: place.home, CORRAL_TMUX_SOCKET: place.socket };
  delete env.CORRAL_TOKEN;
  delete env.CORRAL_URL;
  return env;
}

export interface Serving {
  child: ChildProcess;
  url: string;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not gone in 15 s; its exit code. */
  stop(): Promise<number | null>;
}

/** Runs `corral serve --port 0 …args` and resolves once it listens; rejects if it exits or takes longer than `timeoutMs`. */
export function startServe(env: NodeJS.ProcessEnv, args: string[] = [], options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<Serving> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CORRAL, 'serve', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    // A daemon that does not go in time is a failure of its own; it must not outlive the test.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`corral serve did not listen within ${timeoutMs} ms: ${out}`));
    }, timeoutMs);
    let listening = false;
    const onData = (data: Buffer) => {
      out += data;
      const found = listening ? null : /serving .* at (http:\/\/\S+)/.exec(out);
      if (!found) return;
      listening = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ child, url: found[1]!, output: () => out, stop });
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`corral serve exited (${signal ?? code}) before it listened: ${out}`));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

export interface RequestOptions {
  /** The bearer token; none when null or missing. */
  token?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, when there is no `body`. */
  raw?: string;
  headers?: Record<string, string>;
}

/** One request to a daemon's API: its status, its JSON body (undefined when empty) and its headers. */
export async function request(url: string, method: string, route: string, options: RequestOptions = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}), ...(options.headers ?? {}) };
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(url + route, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
