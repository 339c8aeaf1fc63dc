// DESIGN.md's lifecycle rules, against real tmux on a throwaway socket and real node-pty,
// with a fake agent that refuses to resume a conversation nobody typed in.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/engine';
import { makeRig, storedEvents, storedKey, type Rig } from './support/rig';
import { sleep, waitFor } from './support/wait';
import { outputText } from './support/outputText';

const GRACE = 1_500;

for (const backend of ['tmux', 'pty'] as const) {
  describe(`lifecycle on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;

    beforeEach(async () => {
      rig = await makeRig();
      engine = await rig.open({ backend, resumeGraceMs: GRACE });
    });
    afterEach(async () => {
      await rig.cleanup();
    });

    const screenHas = (id: string, text: string) => async () => (await engine.screen({ id, lines: 200 })).text.includes(text);
    const state = async (id: string) => (await engine.getSession({ id })).state;

    async function createTalkedTo(name: string) {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the fresh start');
      await engine.write({ id: session.id, text: 'hello\r' });
      await waitFor(screenHas(session.id, 'echo: hello'), 'the echo');
      return session;
    }

    it('a first start is clean and hands the CLI the session id, which becomes the resume key', async () => {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'first' });
      expect(session.state).toBe('running');
      await waitFor(screenHas(session.id, `FRESH START ${session.id}`), 'the fresh start');
      expect(rig.launches()).toEqual([`faker fresh ${session.id}`]);
      expect(storedKey(rig, session.id)).toBe(session.id);
      expect(session.resumable).toBe(true);
      const kinds = (await engine.events({ id: session.id })).events.map((e) => e.kind);
      expect(kinds).toEqual(['created', 'started']);
    });

    it('a start with a resume key uses the resume form and reports resumed', async () => {
      const session = await createTalkedTo('resumes');
      await engine.stopSession({ id: session.id });
      expect(await state(session.id)).toBe('stopped');

      const started = await engine.startSession({ id: session.id });
      expect(started.resumed).toBe(true);
      expect(started.session.state).toBe('resuming');
      await waitFor(screenHas(session.id, `RESUMED ${session.id}`), 'the resumed conversation');
      expect(rig.launches()).toEqual([`faker fresh ${session.id}`, `faker resume ${session.id}`]);
      await waitFor(async () => (await state(session.id)) === 'running', 'running after the grace window');
      expect(storedKey(rig, session.id)).toBe(session.id);
      const resumed = (await engine.events({ id: session.id })).events.find((e) => e.kind === 'resuming');
      // The argv keeps its shape; the key itself stays in the database.
      expect(resumed?.detail.argv).toEqual([path.join(rig.bin, 'faker'), 'resume', '<resume key>']);
      expect(storedEvents(rig, session.id).find((e) => e.kind === 'resuming')?.detail.argv).toEqual([path.join(rig.bin, 'faker'), 'resume', session.id]);
    });

    it('a dead key is dropped and the session starts clean by itself, with no second click', async () => {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'recovers' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the fresh start');
      // Nobody typed: like a real agent, there is no conversation to come back to.
      await engine.stopSession({ id: session.id });

      const started = await engine.startSession({ id: session.id });
      expect(started.resumed).toBe(true);

      const fresh = await waitFor(() => rig.launches()[2], 'the clean start');
      const newKey = fresh.replace('faker fresh ', '');
      expect(rig.launches()).toEqual([`faker fresh ${session.id}`, `faker resume ${session.id}`, `faker fresh ${newKey}`]);
      // A new id, so a CLI that refuses to reuse an id with an old transcript cannot trip.
      expect(newKey).not.toBe(session.id);
      expect(newKey).toMatch(/^[0-9a-f-]{36}$/);
      await waitFor(screenHas(session.id, `FRESH START ${newKey}`), 'the clean start on screen');
      await waitFor(async () => (await state(session.id)) === 'running', 'running');
      expect(storedKey(rig, session.id)).toBe(newKey);

      const events = (await engine.events({ id: session.id })).events;
      const failed = events.find((e) => e.kind === 'resume-failed');
      expect(failed?.detail.droppedKeyHint).toBe(`${session.id.slice(0, 8)}…`);
      expect(storedEvents(rig, session.id).find((e) => e.kind === 'resume-failed')?.detail.droppedKey).toBe(session.id);
      expect(failed?.detail.code).toBe(1);
      expect(String(failed?.detail.output)).toContain('No conversation found with session ID');
      expect(failed?.message).toBe('could not resume the conversation (exited with code 1 at once, with nothing typed): starting clean');
      expect(failed?.detail.evidence).toBe('timing');
      expect(events.at(-1)?.detail.fallback).toBe(true);
      // The receipt keeps what the dead resume printed.
      const receipts = await engine.receipts({ id: session.id });
      expect(receipts[0]?.reason).toBe('resume-failed');
    });

    it('a stop keeps its last output as text, and with its colours for the stopped view', async () => {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'colourful' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the start');
      await engine.write({ id: session.id, text: 'colors\r' });
      await waitFor(screenHas(session.id, 'colour 97'), 'the colours');
      await engine.stopSession({ id: session.id });
      const { receipt } = await engine.receipt({ id: session.id });
      expect(receipt?.output).toContain(' colour 31  dim');
      expect(receipt?.output).not.toContain('\x1b');
      const styled = receipt?.styled ?? '';
      for (const code of [31, 91, 97]) expect(styled).toMatch(new RegExp(`\\x1b\\[(?:[0-9;]*;)?${code}m(?:\\x1b\\[[0-9;]*m)* colour ${code} `));
      // Nothing but colours and attributes: no other escape sequence comes with it.
      // eslint-disable-next-line no-control-regex -- SGR sequences are what it reads
      expect(styled.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain('\x1b');
      const lines = (text: string) => text.split('\n').map((line) => line.trimEnd());
      // eslint-disable-next-line no-control-regex -- SGR sequences are what it reads
      expect(lines(styled.replace(/\x1b\[[0-9;]*m/g, ''))).toEqual(lines(receipt?.output ?? ''));
    });

    it('a stop right behind a send waits for its Enter: the message is submitted, not left at the prompt', async () => {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'last words' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the start');
      await engine.write({ id: session.id, text: 'my last words', submit: true });
      await engine.stopSession({ id: session.id });
      expect((await engine.receipt({ id: session.id })).receipt?.output).toContain('echo: my last words');
    });

    it('a session stopped while its resume is still trying stays stopped', async () => {
      rig.env.FAKER_REFUSE_AFTER = '1';
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'stays down' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the fresh start');
      await engine.stopSession({ id: session.id });

      await engine.startSession({ id: session.id });
      await waitFor(() => rig.launches().length === 2, 'the resume to be trying');
      await engine.stopSession({ id: session.id }); // while the resume is still trying
      await sleep(GRACE + 1_500);

      expect(await state(session.id)).toBe('stopped');
      expect(await engine.backend.isAlive(session.id)).toBe(false);
      expect(rig.launches()).toEqual([`faker fresh ${session.id}`, `faker resume ${session.id}`]);
      // A person's stop never drops the key.
      expect(storedKey(rig, session.id)).toBe(session.id);
      expect((await engine.events({ id: session.id })).events.map((e) => e.kind)).not.toContain('resume-failed');
    });

    it('the fallback happens only once: a clean start that dies too stops with an error', async () => {
      const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'gives up' });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the fresh start');
      await engine.stopSession({ id: session.id });
      fs.writeFileSync(path.join(rig.conversations, 'FRESH_FAILS'), '');

      await engine.startSession({ id: session.id });
      await waitFor(async () => (await state(session.id)) === 'exited', 'the session to give up');
      await sleep(GRACE + 500);

      expect(rig.launches()).toHaveLength(3);
      expect(rig.launches()[1]).toBe(`faker resume ${session.id}`);
      expect(rig.launches()[2]).toMatch(/^faker fresh /);
      expect(await state(session.id)).toBe('exited');
      const events = (await engine.events({ id: session.id })).events;
      const gaveUp = events.find((e) => e.kind === 'fallback-failed');
      expect(gaveUp?.message).toBe('the clean start failed too (exited with code 3): not trying again');
      expect(String(gaveUp?.detail.output)).toContain('fresh start failed');
      expect(events.filter((e) => e.kind === 'resume-failed')).toHaveLength(1);
      // The dropped key is in the log; the clean start's id held no conversation, so none is kept.
      expect(storedEvents(rig, session.id).find((e) => e.kind === 'resume-failed')?.detail.droppedKey).toBe(session.id);
      expect(events.find((e) => e.kind === 'resume-failed')?.detail.droppedKeyHint).toBe(`${session.id.slice(0, 8)}…`);
      expect(storedKey(rig, session.id)).toBeNull();
      expect((await engine.receipt({ id: session.id })).receipt?.output).toContain('fresh start failed');
    });

    it("a person's stop never drops a key, and the next start resumes it", async () => {
      const session = await createTalkedTo('kept');
      await engine.stopSession({ id: session.id });
      expect(storedKey(rig, session.id)).toBe(session.id);
      expect((await engine.getSession({ id: session.id })).resumable).toBe(true);
      expect((await engine.events({ id: session.id })).events.at(-1)?.message).toBe('stopped by you');
      expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
      await waitFor(screenHas(session.id, 'RESUMED'), 'the resume');
    });

    it('an exit after the person typed is theirs, not a dead key', async () => {
      const session = await createTalkedTo('typed');
      await engine.stopSession({ id: session.id });
      fs.rmSync(path.join(rig.conversations, session.id));
      rig.env.FAKER_REFUSE_AFTER = '0.6';
      await engine.startSession({ id: session.id });
      await engine.write({ id: session.id, text: 'x' });
      await waitFor(async () => (await state(session.id)) === 'exited', 'the exit');
      expect(storedKey(rig, session.id)).toBe(session.id);
      expect(rig.launches()).toHaveLength(2);
    });

    it('start is idempotent: two quick starts make one process', async () => {
      const session = await createTalkedTo('once');
      await engine.stopSession({ id: session.id });
      const [a, b] = await Promise.all([engine.startSession({ id: session.id }), engine.startSession({ id: session.id })]);
      expect(a.resumed && b.resumed).toBe(true);
      await sleep(300);
      expect(rig.launches()).toEqual([`faker fresh ${session.id}`, `faker resume ${session.id}`]);
      expect((await engine.backend.list()).filter((p) => p.id === session.id)).toHaveLength(1);
      // Starting a running session is a no-op too.
      await engine.startSession({ id: session.id });
      expect(rig.launches()).toHaveLength(2);
    });

    it('an exit by itself leaves a receipt with its code and output', async () => {
      rig.fake('quitter', '#!/bin/bash\necho "work done"\nexit 7\n');
      rig.writeCatalogue('[cli.quitter]\ncommand = "quitter"\n');
      engine.reloadCatalogue();
      const session = await engine.createSession({ cli: 'quitter', cwd: rig.home, name: 'quits' });
      await waitFor(async () => (await state(session.id)) === 'exited', 'the exit');
      const receipt = (await engine.receipt({ id: session.id })).receipt;
      expect(receipt?.exit.code).toBe(7);
      expect(receipt?.reason).toBe('exited');
      expect(receipt?.output).toContain('work done');
      expect((await engine.getSession({ id: session.id })).lastExit?.code).toBe(7);
      expect((await engine.events({ id: session.id })).events.at(-1)?.message).toBe('exited with code 7');
      // A stopped session's screen is what it left.
      expect((await engine.screen({ id: session.id, lines: 5 })).text).toContain('work done');
    });

    it('resize reaches the agent', async () => {
      rig.fake('sizer', '#!/bin/bash\nwhile IFS= read -r line; do echo "size: $(stty size)"; done\n');
      rig.writeCatalogue('[cli.sizer]\ncommand = "sizer"\n');
      engine.reloadCatalogue();
      const session = await engine.createSession({ cli: 'sizer', cwd: rig.home, name: 'sizes' });
      await engine.resize({ id: session.id, cols: 101, rows: 33 });
      await engine.write({ id: session.id, text: '\r' });
      await waitFor(screenHas(session.id, 'size: 33 101'), 'the new size');
    });

    it('an idle session is reaped after its CLI limit and keeps its key', async () => {
      rig.writeCatalogue(`${'[cli.faker]\ncommand = "faker"\nargs = ["fresh", "{id}"]\nresume = ["resume", "{cli_session_id}"]\nidle_timeout = "1s"\n'}`);
      // An engine whose clock the test moves on, instead of waiting for it.
      let skipped = 0;
      await engine.close();
      engine = await rig.open({ backend, resumeGraceMs: GRACE, clock: { now: () => Date.now() + skipped } });
      const session = await createTalkedTo('sleepy');
      skipped += 2_200;
      await engine.reap();
      expect(await state(session.id)).toBe('stopped');
      const last = (await engine.events({ id: session.id })).events.at(-1);
      expect(last?.kind).toBe('reaped');
      expect(last?.message).toMatch(/^stopped after \d+ s idle$/);
      expect(storedKey(rig, session.id)).toBe(session.id);
      expect((await engine.receipt({ id: session.id })).receipt?.reason).toBe('reaped');
      expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    });

    it('a viewer that attaches gets the screen, then live output, and can type', async () => {
      const session = await createTalkedTo('viewed');
      let seen = '';
      const text = outputText();
      const attachment = await engine.attach(session.id, { cols: 120, rows: 40, onData: (d) => (seen += text(d)) });
      try {
        await waitFor(() => seen.includes('echo: hello'), 'the screen on attach');
        attachment.write('again\r');
        await waitFor(() => seen.includes('echo: again'), 'live output');
      } finally {
        attachment.close();
      }
    });
  });
}
