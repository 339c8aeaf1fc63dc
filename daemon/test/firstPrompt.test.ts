// A first prompt given at create is typed into the agent once it is ready, and never into a
// prompt that waits for the person (a trust question typed into would answer it), never twice,
// and never over what the person typed. It outlives a daemon restart. The typist is driven by
// hand here, and "the screen held still long enough" means two looks saw the same screen.

import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/engine';
import { fakeCatalogue } from './support/fakeClis';
import { makeRig, type Rig } from './support/rig';
import { waitFor } from './support/wait';

const TRUST = 'Is this a project you created or one you trust\\?';

for (const backend of ['tmux', 'pty'] as const) {
  describe(`the first prompt on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;
    const open = () => rig.open({ backend, promptIntervalMs: 3_600_000, promptQuietMs: 0 });

    beforeEach(async () => {
      rig = await makeRig();
      rig.env.FAKE_TRUST = '1';
      // The agent fake with the trust question among its attention patterns, as Claude Code's entry has.
      rig.writeCatalogue(fakeCatalogue(rig, ['agent']).replace('[cli.agent]', `[cli.agent]\nattention = ['${TRUST}']`));
      engine = await open();
    });
    afterEach(async () => {
      await rig.cleanup();
    });

    /** Every read the agent got, in order. */
    const reads = (): string[] =>
      fs.existsSync(rig.inputLog) ? fs.readFileSync(rig.inputLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string) : [];
    const screenHas = (id: string, text: string) => async () => (await engine.screen({ id, lines: 200 })).text.includes(text);
    const kinds = async (id: string) => (await engine.events({ id })).events.map((e) => e.kind);
    /** Two looks: enough for a ready agent to get its prompt. */
    const quietLooks = async () => {
      await engine.watchFirstPrompts();
      await engine.watchFirstPrompts();
    };
    const trust = async (id: string) => {
      await waitFor(screenHas(id, 'you trust?'), 'the trust prompt');
      await waitFor(async () => (await engine.getSession({ id })).needsYou !== null, 'the trust prompt to need the person');
    };

    it('waits through a trust prompt, then types the prompt once, with Enter on its own', async () => {
      const session = await engine.createSession({ cli: 'agent', cwd: rig.home, name: 'first', prompt: 'fix the failing test' });
      expect(session.promptWaiting).toBe(true);
      await trust(session.id);
      await quietLooks();
      await quietLooks();
      expect(reads()).toEqual([]);

      // The person trusts the folder: Down, then Enter.
      await engine.write({ id: session.id, text: '\x1b[B', submit: true });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the agent past its trust prompt');
      await waitFor(async () => {
        await quietLooks();
        return (await kinds(session.id)).includes('prompt-typed');
      }, 'the prompt to be typed');
      await waitFor(screenHas(session.id, 'submitted: fix the failing test'), 'the prompt, submitted');
      expect(reads()).toEqual(['\x1b[B', '\r', 'fix the failing test', '\r']);
      expect((await engine.getSession({ id: session.id })).promptWaiting).toBe(false);
      await quietLooks();
      expect(reads()).toHaveLength(4);
    });

    it('is not typed over what the person typed first, and its text stays in the event', async () => {
      const session = await engine.createSession({ cli: 'agent', cwd: rig.home, name: 'mine', prompt: 'the prompt' });
      await trust(session.id);
      await engine.write({ id: session.id, text: '\x1b[B', submit: true });
      await waitFor(screenHas(session.id, 'FRESH START'), 'the agent past its trust prompt');
      await waitFor(async () => (await engine.getSession({ id: session.id })).needsYou === null, 'the question to be seen gone');
      // The typist sees the agent ready; the person is quicker.
      await engine.watchFirstPrompts();
      await engine.write({ id: session.id, text: 'x' });
      await waitFor(screenHas(session.id, '> x'), 'what the person typed');
      await quietLooks();
      const skipped = (await engine.events({ id: session.id })).events.find((e) => e.kind === 'prompt-skipped');
      expect(skipped?.detail.prompt).toBe('the prompt');
      expect(reads().join('')).not.toContain('the prompt');
      expect((await engine.getSession({ id: session.id })).promptWaiting).toBe(false);
    });

    it('a prompt of blanks is no prompt', async () => {
      const session = await engine.createSession({ cli: 'agent', cwd: rig.home, name: 'blank', prompt: '  \n ' });
      expect(session.promptWaiting).toBe(false);
    });
  });
}

describe('the first prompt and a daemon restart', () => {
  it('a prompt not typed yet is typed once by the next daemon', async () => {
    const rig = await makeRig();
    try {
      rig.env.FAKE_TRUST = '1';
      rig.writeCatalogue(fakeCatalogue(rig, ['agent']).replace('[cli.agent]', `[cli.agent]\nattention = ['${TRUST}']`));
      const open = () => rig.open({ backend: 'tmux', promptIntervalMs: 3_600_000, promptQuietMs: 0 });
      let engine = await open();
      const session = await engine.createSession({ cli: 'agent', cwd: rig.home, name: 'kept', prompt: 'after the restart' });
      await engine.close();
      engine = await open();
      expect((await engine.getSession({ id: session.id })).promptWaiting).toBe(true);
      await waitFor(async () => (await engine.screen({ id: session.id, lines: 50 })).text.includes('you trust?'), 'the trust prompt');
      await engine.write({ id: session.id, text: '\x1b[B', submit: true });
      await waitFor(async () => {
        await engine.watchFirstPrompts();
        await engine.watchFirstPrompts();
        return (await engine.screen({ id: session.id, lines: 50 })).text.includes('submitted: after the restart');
      }, 'the prompt, typed by the next daemon');
      const reads = fs.readFileSync(rig.inputLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string);
      expect(reads.filter((read) => read === 'after the restart')).toHaveLength(1);
    } finally {
      await rig.cleanup();
    }
  });
});
