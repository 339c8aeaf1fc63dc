// Puts an engine on the loopback API for this user's own clients (`corral ls`, `attach`, MCP)
// and for agents' hooks: the HTTP server, a token for the endpoint file, and the address agents
// are told. `corral serve` and the desktop app both publish their engine this way.

import { removeEndpoint, writeEndpoint } from '../../home/endpoint';
import type { Engine } from '../../engine/engine';
import { startServer, type ServeOptions } from './httpServer';

export interface Published {
  url: string;
  /** A link to the web UI that opens once, within 60 s (its code is the only secret in it). */
  link(): string;
  close(): Promise<void>;
}

export async function publish(engine: Engine, options: ServeOptions & { holder: string }): Promise<Published & { token: string }> {
  const server = await startServer(engine, options);
  let local: ReturnType<Engine['tokens']['create']>;
  try {
    // What a daemon that died without closing left behind goes before this one makes its own.
    engine.tokens.dropOtherRuns();
    // A token for this user's own clients, valid while this process serves the home.
    local = engine.tokens.create('local clients', { ephemeral: true });
    writeEndpoint(engine.home, { url: server.url, pid: process.pid, token: local.secret });
    engine.announce(server.url, `${options.holder} (${server.url})`);
  } catch (err) {
    // (A full disk, say.) Nothing is left listening for a daemon that is not there.
    await server.close();
    removeEndpoint(engine.home, process.pid);
    throw err;
  }
  return {
    url: server.url,
    token: local.secret,
    link: () => `${server.url}/#code=${server.links.issue(false).code}`,
    async close() {
      await server.close();
      engine.tokens.revoke(local.info.id);
      removeEndpoint(engine.home, process.pid);
    },
  };
}
