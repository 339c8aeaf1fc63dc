// A restarted `corral serve` listens before it has taken up the sessions it finds (its health
// check answers at once), and every other request waits until it has: the first answer already
// tells the live sessions from the ones that ended while no daemon ran.

import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Rig } from './support/rig';
import { serveRig } from './support/serveRig';
import { waitFor } from './support/wait';

let rig: Rig | null = null;

afterEach(async () => {
  await rig?.cleanup();
  rig = null;
});

describe('a restarted corral serve', () => {
  it('answers its first request with the sessions as the restart found them', async () => {
    const first = await serveRig();
    rig = first.rig;
    const ids: string[] = [];
    for (const name of ['stays', 'goes']) {
      const made = await first.api('POST', '/api/sessions', { body: { cli: 'keeper', cwd: rig.home, name } });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    for (const id of ids) await waitFor(async () => (await first.api('GET', `/api/sessions/${id}`)).body.state === 'running', 'the agent to run');
    expect(await first.stop()).toBe(0);
    // While no daemon runs, one agent's tmux session is closed.
    execFileSync('tmux', ['-L', rig.socket, 'kill-session', '-t', `=corral-${ids[1]}`]);

    const second = await serveRig([], rig);
    const sessions = (await second.api('GET', '/api/sessions')).body.sessions as { id: string; state: string }[];
    expect(sessions.find((s) => s.id === ids[0])?.state).toBe('running');
    expect(sessions.find((s) => s.id === ids[1])?.state).toBe('stopped');
    expect(second.output()).not.toMatch(/could not take up/);
  });
});
