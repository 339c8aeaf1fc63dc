// Viewers never harm agents or each other: a viewer that stops acknowledging (its flow control
// paused) holds its agent and the other viewers back for a moment at most; one that disconnects
// while paused leaves nothing stuck; one that asks for more again is given the screen as it is
// now, not what it missed; and one that pauses often, each time for less than a second, holds its
// agent for a share of the time only (pty backend).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../backends/backend';
import { HOLD_SHARE, PtyBackend, VIEWER_HOLD_MS } from '../backends/ptyBackend';
import type { Engine } from '../engine/engine';
import { DEFAULT_SIZE } from '../engine/runtime';
import { makeRig, type Rig } from './support/rig';
import { waitFor } from './support/wait';
import { outputText } from './support/outputText';

/** Numbered lines, a hundred every 10 ms, for ever: far more than a pty holds while nobody reads. */
const COUNTER = `#!/bin/bash\nexec perl -e '$|=1; my $i = 0; while (1) { print ++$i, " counted\\n" for 1..100; select(undef, undef, undef, 0.01) }'\n`;

/** A viewer that keeps the highest line number it was shown. */
function watcher() {
  const seen = { highest: 0, text: '' };
  const text = outputText();
  return {
    seen,
    onData(chunk: string | Uint8Array) {
      const data = text(chunk);
      seen.text = (seen.text + data).slice(-20_000);
      for (const [, n] of data.matchAll(/(\d+) counted/g)) seen.highest = Math.max(seen.highest, Number(n));
    },
  };
}

for (const backend of ['pty', 'tmux'] as const) {
  describe(`a slow viewer on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;
    const open: Attachment[] = [];

    beforeEach(async () => {
      rig = await makeRig();
      rig.fake('counter', COUNTER);
      rig.writeCatalogue('[cli.counter]\ncommand = "counter"\n');
      engine = await rig.open({ backend });
    });
    afterEach(async () => {
      for (const attachment of open.splice(0)) attachment.close();
      await rig.cleanup();
    });

    const attach = async (id: string, onData: (data: string | Uint8Array) => void) => {
      const attachment = await engine.attach(id, { cols: 80, rows: 24, onData, viewOnly: true });
      open.push(attachment);
      return attachment;
    };
    /** The highest line number on the session's screen now. */
    const counted = async (id: string) => Math.max(0, ...[...(await engine.screen({ id, lines: 30 })).text.matchAll(/(\d+) counted/g)].map((m) => Number(m[1])));

    it('one that never acknowledges again holds back neither the agent nor a viewer that does', async () => {
      const session = await engine.createSession({ cli: 'counter', cwd: rig.home, name: 'count' });
      const slow = watcher();
      const stalled = await attach(session.id, slow.onData);
      const quick = watcher();
      await attach(session.id, quick.onData);
      await waitFor(() => slow.seen.highest > 0 && quick.seen.highest > 0, 'both viewers to see lines');
      stalled.pause();
      const atPause = quick.seen.highest;
      // Far more lines than the pause could ever hold back, to the viewer that keeps up and on the agent's screen.
      await waitFor(() => quick.seen.highest > atPause + 20_000, 'the quick viewer to go on', 20_000);
      await waitFor(async () => (await counted(session.id)) > atPause + 20_000, 'the agent to go on', 20_000);
      if (backend === 'pty') expect(slow.seen.highest).toBeLessThan(atPause + 20_000);

      // It asks for more again: it is given the screen as it is now, and goes on live.
      const before = quick.seen.highest;
      stalled.resume();
      await waitFor(() => slow.seen.highest > before, 'the slow viewer to catch up to the present', 20_000);
    });

    it.runIf(backend === 'pty')('one that catches up is sent the screen and the lines it asked for, not the whole history again', async () => {
      const session = await engine.createSession({ cli: 'counter', cwd: rig.home, name: 'count' });
      const frames: string[] = [];
      const text = outputText();
      const stalled = await engine.attach(session.id, { cols: 80, rows: 24, history: 100, viewOnly: true, onData: (data) => frames.push(text(data)) });
      open.push(stalled);
      const quick = watcher();
      await attach(session.id, quick.onData);
      await waitFor(() => frames.length > 0 && quick.seen.highest > 0, 'both viewers to see lines');
      stalled.pause();
      const atPause = quick.seen.highest;
      // Far more than the lines it asked for, and than the agent's terminal keeps.
      await waitFor(() => quick.seen.highest > atPause + 20_000, 'the quick viewer to go on', 20_000);
      const atResume = quick.seen.highest;
      const before = frames.length;
      stalled.resume();
      await waitFor(() => frames.slice(before).some((frame) => frame.startsWith('\x1bc')), 'the catch-up', 20_000);
      const caught = frames.slice(before).find((frame) => frame.startsWith('\x1bc'))!;
      // A clean terminal, then consecutive lines up to the present: the 100 lines of history it
      // asked for and the agent's screen (its size, its last row the cursor's), then what came meanwhile.
      const numbers = [...caught.matchAll(/(\d+) counted/g)].map((m) => Number(m[1]));
      expect(numbers.at(-1)).toBeGreaterThan(atResume);
      const history = numbers.findIndex((n) => n > atResume);
      expect(history).toBeGreaterThanOrEqual(100);
      expect(history).toBeLessThanOrEqual(100 + DEFAULT_SIZE.rows);
      expect(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1)).toBe(true);

      // A viewer that connects asking for all of it is still given the recent output, far more.
      let replay = '';
      const freshText = outputText();
      const fresh = await engine.attach(session.id, { cols: 80, rows: 24, viewOnly: true, onData: (data) => (replay ||= freshText(data)) });
      open.push(fresh);
      await waitFor(() => replay !== '', 'the new viewer’s replay');
      expect([...replay.matchAll(/\d+ counted/g)].length).toBeGreaterThan(20_000);
    });

    it('one that disconnects while it holds the agent back leaves it running on', async () => {
      const session = await engine.createSession({ cli: 'counter', cwd: rig.home, name: 'count' });
      const slow = watcher();
      const stalled = await attach(session.id, slow.onData);
      await waitFor(() => slow.seen.highest > 0, 'the viewer to see lines');
      stalled.pause();
      stalled.close();
      const atClose = await counted(session.id);
      await waitFor(async () => (await counted(session.id)) > atClose + 20_000, 'the agent to go on', 20_000);
      // A viewer that comes later sees it live.
      const later = watcher();
      await attach(session.id, later.onData);
      const now = await counted(session.id);
      await waitFor(() => later.seen.highest > now, 'a new viewer to see new lines', 20_000);
    });
  });
}

describe('a slow viewer on the pty backend, by its allowance', () => {
  let backend: PtyBackend | null = null;
  afterEach(async () => {
    await backend?.close();
    backend = null;
  });

  it('one that held its agent for its whole allowance, never a second at a time, falls behind at its next pause; ten times as long later it holds it again', async () => {
    let now = 0;
    backend = new PtyBackend(() => now);
    await backend.open(() => {});
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', '$| = 1; my $i = 0; while (1) { print ++$i, " counted\\n" for 1..100; select(undef, undef, undef, 0.01) }'], cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>, cols: 80, rows: 24 });
    const frames: string[] = [];
    const text = outputText();
    const slow = await backend.attach('agent', { cols: 80, rows: 24, history: 0, onData: (data) => frames.push(text(data)) });
    await waitFor(() => frames.length > 0, 'output');
    // Held for its whole allowance by the backend's clock, and resumed before any timer fired.
    slow.pause();
    now += VIEWER_HOLD_MS;
    slow.resume();
    // None of it earned back yet: its next pause lets the agent go on at once, and it catches up from the screen.
    slow.pause();
    const before = frames.length;
    const shown = await backend.visible('agent');
    await waitFor(async () => (await backend!.visible('agent')) !== shown, 'the agent to go on without it');
    slow.resume();
    await waitFor(() => frames.slice(before).some((frame) => frame.startsWith('\x1bc')), 'the catch-up');
    // All of it is back: a pause holds the agent again, and a resume within it goes on live.
    now += VIEWER_HOLD_MS / HOLD_SHARE;
    const from = frames.length;
    slow.pause();
    slow.resume();
    await waitFor(() => frames.length > from + 10, 'live output');
    expect(frames.slice(from).some((frame) => frame.startsWith('\x1bc'))).toBe(false);
    slow.close();
  });

  it('one paused past its allowance while its agent printed nothing (a history replayed to a slow page) goes on without a catch-up; one its agent printed past does not', async () => {
    let now = 0;
    backend = new PtyBackend(() => now);
    await backend.open(() => {});
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', '$| = 1; print "line $_\n" for 1..50; while (<STDIN>) { print "got $_" }'], cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.visible('agent')).includes('line 50'), 'the agent’s lines');
    const frames: string[] = [];
    const text = outputText();
    const slow = await backend.attach('agent', { cols: 80, rows: 24, onData: (data) => frames.push(text(data)) });
    const caughtUp = () => frames.some((frame) => frame.includes('\x1bc'));
    expect(frames.join('')).toContain('line 50');
    // Its allowance spent, by the backend's clock: its next pause does not hold the agent.
    slow.pause();
    now += VIEWER_HOLD_MS;
    slow.resume();
    slow.pause();
    slow.resume();
    await backend.write('agent', 'more\r');
    await waitFor(() => frames.join('').includes('got more'), 'live output');
    expect(caughtUp()).toBe(false);
    // Paused again, and the agent prints meanwhile: that viewer missed it, and catches up.
    slow.pause();
    await backend.write('agent', 'missed\r');
    await waitFor(async () => (await backend!.visible('agent')).includes('got missed'), 'the agent to print');
    expect(frames.join('')).not.toContain('got missed');
    slow.resume();
    await waitFor(caughtUp, 'the catch-up');
    expect(frames.join('')).toContain('got missed');
    slow.close();
  });
});
