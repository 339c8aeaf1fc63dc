// How a dead resume key is known (DESIGN.md rule 2), with fakes as slow and as talkative as the
// real CLIs: the conversation missing from the CLI's files (no doomed launch at all), the CLI's
// own words however late they come, and only as a last resort the clock.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/engine';
import { makeRig, storedEvents, storedKey, type Rig } from './support/rig';
import { waitFor } from './support/wait';

for (const backend of ['tmux', 'pty'] as const) {
  describe(`dead keys on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;

    beforeEach(async () => {
      rig = await makeRig();
      // The shipped grace window, not the short one other tests use: real CLIs are slow.
      engine = await rig.open({ backend, resumeGraceMs: undefined });
    });
    afterEach(async () => {
      await rig.cleanup();
    });

    const screenHas = (id: string, text: string) => async () => (await engine.screen({ id, lines: 200 })).text.includes(text);
    const kinds = async (id: string) => (await engine.events({ id })).events.map((e) => e.kind);

    async function neverTyped(cli: string, name: string) {
      const session = await engine.createSession({ cli, cwd: rig.home, name });
      await waitFor(screenHas(session.id, `FRESH START ${session.id}`), 'the fresh start');
      await engine.stopSession({ id: session.id });
      return session;
    }

    it('a key whose conversation is not in the CLI files starts clean at once, without launching the resume', async () => {
      const session = await neverTyped('keeper', 'missing');
      const started = await engine.startSession({ id: session.id });
      expect(started.resumed).toBe(false);
      // The start's answer names it too, for a caller that does not read the events.
      expect(started.lost).toEqual({ keyHint: `${session.id.slice(0, 8)}…`, why: "it is not in Keeper's files" });
      await waitFor(() => rig.launches().length >= 2, 'the clean start');
      const launches = rig.launches();
      expect(launches).toHaveLength(2);
      expect(launches[1]).toMatch(/^agent fresh [0-9a-f-]{36}$/);
      const newKey = launches[1]!.replace('agent fresh ', '');
      expect(newKey).not.toBe(session.id);
      await waitFor(screenHas(session.id, `FRESH START ${newKey}`), 'the clean start');
      const events = (await engine.events({ id: session.id })).events;
      const lost = events.filter((e) => e.kind === 'resume-failed');
      expect(lost).toHaveLength(1);
      // The lost key is named by its first characters; the database keeps all of it.
      expect(lost[0]!.detail).toMatchObject({ droppedKeyHint: `${session.id.slice(0, 8)}…`, evidence: 'missing' });
      expect(storedEvents(rig, session.id).find((e) => e.kind === 'resume-failed')?.detail.droppedKey).toBe(session.id);
      expect(lost[0]!.message).toBe("could not resume the conversation (it is not in Keeper's files): starting clean");
      expect(events.map((e) => e.kind)).not.toContain('resuming');
      expect(storedKey(rig, session.id)).toBe(newKey);
    });

    it("the CLI's own dead-key words mean a dead key, however late they come (9 s, past any grace window)", async () => {
      const session = await neverTyped('agent', 'slow words');
      const t0 = Date.now();
      expect((await engine.startSession({ id: session.id })).session.state).toBe('resuming');
      const fresh = await waitFor(() => rig.launches()[2], 'the clean start', 40_000);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(9_000);
      const newKey = fresh.replace('agent fresh ', '');
      await waitFor(screenHas(session.id, `FRESH START ${newKey}`), 'the clean start on screen');
      const events = (await engine.events({ id: session.id })).events;
      const lost = events.filter((e) => e.kind === 'resume-failed');
      expect(lost).toHaveLength(1);
      expect(lost[0]!.detail).toMatchObject({ droppedKeyHint: `${session.id.slice(0, 8)}…`, evidence: 'words', code: 1 });
      expect(lost[0]!.message).toBe('could not resume the conversation (Agent could not find it, and exited with code 1): starting clean');
      // It never said the conversation was back.
      expect(events.map((e) => e.kind)).not.toContain('resumed');
      expect(storedKey(rig, session.id)).toBe(newKey);
      expect((await engine.receipts({ id: session.id }))[0]?.output).toContain(`No conversation found with session ID: ${session.id}`);
    }, 60_000);

    it('the words count even when the person answered a trust prompt first', async () => {
      const session = await neverTyped('agent', 'trusting');
      rig.env.FAKE_TRUST = '1';
      rig.env.FAKE_DEAD_AFTER = '0.3';
      await engine.startSession({ id: session.id });
      await waitFor(screenHas(session.id, 'Is this a project you created or one you trust?'), 'the trust prompt');
      // Down to "Yes, I trust this folder", then Enter as a keystroke of its own.
      await engine.write({ id: session.id, text: '\x1b[B', submit: true });
      await waitFor(() => rig.launches()[2], 'the clean start', 20_000);
      const lost = (await engine.events({ id: session.id })).events.filter((e) => e.kind === 'resume-failed');
      expect(lost).toHaveLength(1);
      expect(lost[0]!.detail.evidence).toBe('words');
    });

    it('a kept conversation resumes, and is said to be back only once the resume held', async () => {
      const session = await engine.createSession({ cli: 'keeper', cwd: rig.home, name: 'kept' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the fresh start');
      await engine.write({ id: session.id, text: 'hello', submit: true });
      await waitFor(() => fs.existsSync(path.join(rig.conversations, session.id)), 'the conversation to be saved');
      await engine.stopSession({ id: session.id });
      await engine.close();
      engine = await rig.open({ backend, resumeGraceMs: 1_000 });

      expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
      await waitFor(screenHas(session.id, `RESUMED ${session.id}`), 'the resumed conversation');
      await waitFor(async () => (await kinds(session.id)).at(-1) === 'resumed', 'the resume to hold');
      // "resumed" comes only once the resume held for its grace window, whatever the machine's load.
      const events = (await engine.events({ id: session.id })).events;
      const [resuming, resumed] = [events.findLast((e) => e.kind === 'resuming')!, events.at(-1)!];
      expect(events.indexOf(resuming)).toBe(events.length - 2);
      expect(resumed.at - resuming.at).toBeGreaterThanOrEqual(1_000);
      expect((await engine.getSession({ id: session.id })).state).toBe('running');
      expect(rig.launches().at(-1)).toBe(`agent resume ${session.id}`);
      expect(storedKey(rig, session.id)).toBe(session.id);
    });
  });
}
