// The terminal behaves like one towards real CLIs: typing from scripts submits (text, then Enter
// as its own keystroke), and what a viewer's terminal says on its own never reaches the agent.

import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine';
import { makeRig, waitFor, type Rig } from './rig';

for (const backend of ['tmux', 'pty'] as const) {
  describe(`the terminal on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;

    beforeEach(async () => {
      rig = await makeRig();
      engine = await rig.open({ backend });
    });
    afterEach(async () => {
      await rig.cleanup();
    });

    const screen = async (id: string) => (await engine.screen({ id, lines: 200 })).text;
    const reads = () =>
      fs
        .readFileSync(rig.inputLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string);

    async function ready(name: string) {
      const session = await engine.createSession({ cli: 'agent', cwd: rig.home, name });
      await waitFor(async () => /^> ?$/m.test(await screen(session.id)), 'the prompt');
      return session;
    }

    it('text sent to submit arrives, then Enter alone, so the agent submits it rather than taking a paste', async () => {
      const session = await ready('submits');
      await engine.write({ id: session.id, data: 'run the tests', submit: true });
      await waitFor(async () => (await screen(session.id)).includes('submitted: run the tests'), 'the submitted message');
      expect(reads()).toEqual(['run the tests', '\r']);
    });

    it('(control) text and Enter in one write is a paste to such an agent', async () => {
      const session = await ready('pastes');
      await engine.write({ id: session.id, data: 'run the tests\r' });
      await waitFor(async () => (await screen(session.id)).includes('[Pasted text'), 'the paste');
      expect(await screen(session.id)).not.toContain('submitted:');
    });
  });
}
