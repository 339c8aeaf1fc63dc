// `corral serve`: the engine, headless, behind the HTTP/WebSocket API.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../engine/engine';
import { CorralError } from '../contract/errors';
import { moduleDir } from '../home/resources';
import { isLoopback } from '../transports/http/httpServer';
import { publish, type Published } from '../transports/http/publish';

export interface ServeArgs {
  host: string;
  port: number;
  home: string;
  allowRemote: boolean;
  backend?: 'tmux' | 'pty';
}

/** The renderer's build (out/renderer), looked for up from this file. */
function webRoot(): string | null {
  let dir = moduleDir();
  for (;;) {
    const candidate = path.join(dir, 'out', 'renderer');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
    if (path.basename(dir) === 'out' && fs.existsSync(path.join(dir, 'renderer', 'index.html'))) return path.join(dir, 'renderer');
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export async function serve(args: ServeArgs): Promise<number> {
  if (!isLoopback(args.host) && !args.allowRemote) {
    process.stderr.write(`corral serve: refusing to listen on ${args.host}: the API would be reachable from other machines; add --allow-remote if you mean it\n`);
    return 2;
  }
  let engine: Engine;
  try {
    // It listens before the sessions it finds are reattached; requests wait for them (Engine.recovered).
    engine = await Engine.open({ home: args.home, backend: args.backend, holder: 'corral serve', recoverAfterOpen: true });
  } catch (err) {
    if (err instanceof CorralError || (err as Error).name === 'MigrationError') {
      process.stderr.write(`corral serve: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  }
  let server: Published & { token: string };
  try {
    server = await publish(engine, { host: args.host, port: args.port, allowRemote: args.allowRemote, webRoot: webRoot(), holder: 'corral serve' });
  } catch (err) {
    await engine.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') process.stderr.write(`corral serve: cannot listen: port ${args.port} on ${args.host} is already in use (try --port)\n`);
    else if (code === 'EACCES' || code === 'EADDRNOTAVAIL') process.stderr.write(`corral serve: cannot listen on ${args.host}:${args.port}: ${(err as Error).message}\n`);
    else process.stderr.write(`corral serve: could not start: ${(err as Error).message}\n`);
    return 1;
  }
  if (args.allowRemote && !isLoopback(args.host)) {
    process.stderr.write(`corral serve: warning: listening on ${args.host}: anyone who can reach this address and holds a token can drive your agents\n`);
  }
  process.stdout.write(`corral: serving ${engine.home} at ${server.url}\n`);
  // A link goes to a person's terminal only, never into a captured log; it opens once, within 60 s.
  if (process.stdout.isTTY) process.stdout.write(`corral: open ${server.link()} (it works once, within 60 s; \`corral url\` makes another)\n`);
  else process.stdout.write('corral: `corral url` prints a link to the web UI\n');
  // Heard from now on: a stop during the reattach waits for it, then shuts down as usual.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  try {
    await engine.recovered;
  } catch (err) {
    process.stderr.write(`corral serve: could not take up the sessions it found: ${(err as Error).message}\n`);
    await server.close();
    await engine.close().catch(() => {});
    return 1;
  }
  await stopped;
  process.stdout.write(`corral: shutting down; ${engine.backend.kind === 'tmux' ? 'agents in tmux keep running' : 'its agents end with it'}\n`);
  // Whatever still holds the event loop (a viewer that will not close), the daemon goes.
  const watchdog = setTimeout(() => {
    process.stderr.write('corral serve: shutdown took over 10 s; exiting anyway\n');
    process.exit(1);
  }, 10_000);
  watchdog.unref();
  process.once('SIGINT', () => process.exit(130));
  await server.close();
  await engine.close();
  // Exit now rather than wait for handles a viewer may still hold.
  process.exit(0);
}

/**
 * For the build's code cache (codeCache.ts): a start as `serve` makes one, in a throwaway home
 * with the pty backend (no tmux server is touched) and that home as HOME (no transcripts are
 * read), up to /healthz, a list of sessions and a request for one. What it ran is compiled by
 * then, so the cache holds it too and a real start (or its first request with fields) does not
 * compile it again.
 */
export async function rehearse(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-rehearsal-'));
  try {
    const engine = await Engine.open({ home, backend: 'pty', holder: 'the build', recoverAfterOpen: true, env: { PATH: process.env.PATH, HOME: home } });
    try {
      const server = await publish(engine, { host: '127.0.0.1', port: 0, allowRemote: false, webRoot: null, holder: 'the build' });
      try {
        // A session that is not there: a request with a field, checked by zod, which a start does not load (a list takes nothing).
        for (const route of ['/healthz', '/api/sessions', '/api/sessions/none']) {
          await new Promise<void>((resolve, reject) => {
            http.get(`${server.url}${route}`, { headers: { Authorization: `Bearer ${server.token}` } }, (res) => res.resume().on('end', resolve)).on('error', reject);
          });
        }
        await engine.recovered;
      } finally {
        await server.close();
      }
    } finally {
      await engine.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
