// Sessions on a remote host over real SSH: a real sshd on loopback, a second home and tmux
// socket as the remote, reached by the local `corral serve` through its link (probe, `corral
// endpoint`, tunnel) and its proxy at /api/hosts/NAME/.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig } from './support/rig';
import { startRemote, type RemoteHost } from './support/remoteHost';
import { collect, serveRig, type Served } from './support/serveRig';
import { waitFor } from './support/wait';

let local: Served;
let remote: RemoteHost;

beforeAll(async () => {
  remote = await startRemote();
  const rig = await makeRig();
  rig.env.CORRAL_SSH_CONFIG = remote.sshd.config;
  local = await serveRig([], rig);
});
afterAll(async () => {
  await local?.rig.cleanup();
  await remote?.cleanup();
});

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
    const id = made.body.id as string;
    // It is the remote home's session, not this one's.
    expect((await local.api('GET', '/api/sessions')).body.sessions).toEqual([]);
    expect(remote.world.launches().length).toBeGreaterThan(0);

    const ws = local.ws(onDevbox(`/api/sessions/${id}/stream?cols=100&rows=30`));
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.text().includes('FRESH START'), 'the remote screen');
    ws.send(JSON.stringify({ type: 'input', data: 'over ssh\r' }));
    await waitFor(() => got.text().includes('echo: over ssh'), 'the echo through the tunnel');
    ws.close();
    await got.closed;
  });
});
