// Viewers of tmux sessions at the edges of a process's life: one whose tmux client has ended.
// Against a real tmux server on the world's socket.

import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { TmuxBackend } from '../backends/tmuxBackend';
import type { Engine } from '../engine/engine';
import { waitFor } from './support/wait';
import { makeWorld, type World } from './support/world';
import { tmuxBackendWith } from './support/wrappedTmux';

let world: World | null = null;
let backend: TmuxBackend | null = null;
let engine: Engine | null = null;

afterEach(async () => {
  await engine?.close();
  await backend?.close();
  world?.cleanup();
  engine = backend = world = null;
});

describe('a viewer whose tmux client ended', () => {
  it('takes a resize and keys without ending the daemon (its terminal is gone)', async () => {
    world = makeWorld('ended-viewer', { programs: [], clis: [] });
    const replier = world.fake('replier', '#!/bin/sh\necho ready\nexec cat\n');
    backend = tmuxBackendWith(world, {});
    await backend.open(() => {});
    await backend.spawn({ id: 'one', file: replier, args: [], cwd: world.root, env: { PATH: world.env.PATH!, HOME: world.home }, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.capture('one', 10)).includes('ready'), 'the agent');
    let ended = false;
    const viewer = await backend.attach('one', { cols: 80, rows: 24, onData: () => {}, onClose: () => (ended = true) });

    // Its client goes (as one that attached to a session about to close does); the page's resize comes after.
    execFileSync('tmux', ['-L', world.socket, 'detach-client', '-s', '=corral-one'], { stdio: 'ignore' });
    await waitFor(() => ended, 'the viewer’s client to end');
    expect(() => viewer.resize(100, 30)).not.toThrow();
    expect(() => viewer.write('x')).not.toThrow();
    viewer.close();
    expect(await backend.isAlive('one')).toBe(true);
  });
});
