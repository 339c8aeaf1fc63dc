// A viewer of a real `corral serve` (pty backend) that stops acknowledging, beside one that keeps
// up: the one that keeps up and the agent go on, and when the slow one acknowledges again it is
// sent the screen as it is now, not megabytes of history it would fall behind on again.

import { afterAll, beforeAll, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { HIGH_WATER } from '../streams/outputPump';
import { REPLAY_LIMIT } from '../backends/ptyBackend';
import { serveRig, type Served } from './support/serveRig';
import { makeRig } from './support/rig';
import { waitFor } from './support/wait';

/** Numbered lines, a thousand every 10 ms, for ever. */
const COUNTER = `#!/bin/bash\nexec perl -e '$|=1; my $i = 0; while (1) { print ++$i, " counted\\n" for 1..1000; select(undef, undef, undef, 0.01) }'\n`;

let s: Served;
beforeAll(async () => {
  const rig = await makeRig();
  rig.fake('counter', COUNTER);
  rig.writeCatalogue('[cli.counter]\ncommand = "counter"\n');
  s = await serveRig(['--backend', 'pty'], rig);
});
afterAll(async () => {
  await s.rig.cleanup();
});

/** A stream's viewer: what it was sent, the highest line number in it, and the bytes since a mark. */
function viewer(ws: WebSocket, acknowledging: () => boolean) {
  const seen = { highest: 0, bytes: 0, text: '' };
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return;
    const bytes = data as Buffer;
    seen.bytes += bytes.length;
    seen.text = (seen.text + bytes.toString('utf8')).slice(-1_000_000);
    for (const [, n] of bytes.toString('utf8').matchAll(/(\d+) counted/g)) seen.highest = Math.max(seen.highest, Number(n));
    if (acknowledging()) ws.send(JSON.stringify({ type: 'ack', bytes: bytes.length }));
  });
  return seen;
}

// Its waits allow up to 100 s in all on a loaded machine: the test as a whole allows that too.
it('a viewer that stops acknowledging holds back neither the agent nor a viewer beside it, and catches up from the screen', { timeout: 120_000 }, async () => {
  const id = (await s.api('POST', '/api/sessions', { body: { cli: 'counter', cwd: s.rig.home, name: 'count' } })).body.id as string;
  let slowAcks = false;
  const slowWs = s.ws(`/api/sessions/${id}/stream?history=100`);
  const slow = viewer(slowWs, () => slowAcks);
  const fastWs = s.ws(`/api/sessions/${id}/stream`);
  const fast = viewer(fastWs, () => true);
  try {
    // The slow one never acknowledges: it is sent up to the high-water mark, and then nothing.
    await waitFor(() => slow.bytes > HIGH_WATER, 'the slow viewer to reach its high-water mark', 20_000);
    const stalledAt = slow.highest;
    // The agent and the viewer beside it go on, far past what the session's recent output holds.
    const fastFrom = fast.bytes;
    await waitFor(() => fast.bytes > fastFrom + 2 * REPLAY_LIMIT, 'the quick viewer to go on', 60_000);
    expect(slow.highest).toBeLessThan(stalledAt + 40_000);

    // It acknowledges again: a clean terminal, its screen and the lines it asked for, then live output.
    const present = fast.highest;
    const before = slow.bytes;
    slowAcks = true;
    slowWs.send(JSON.stringify({ type: 'ack', bytes: before }));
    await waitFor(() => slow.highest > present, 'the slow viewer to catch up to the present', 20_000);
    expect(slow.text).toContain('\x1bc');
    // Before, this was the recent output again: up to REPLAY_LIMIT.
    expect(slow.bytes - before).toBeLessThan(REPLAY_LIMIT / 4);
  } finally {
    slowWs.close();
    fastWs.close();
  }
});
