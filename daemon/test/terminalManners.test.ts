// The terminal behaves like one towards real CLIs: typing from scripts submits (text, then Enter
// as its own keystroke), and what a viewer's terminal says on its own never reaches the agent.

import fs from 'node:fs';
import headless from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../backends/backend';
import { DEFAULT_COLORS } from '../backends/backend';
import { xtermColor } from '../backends/ptyBackend';
import type { Engine } from '../engine/engine';
import { shows } from '../engine/typing';
import { makeRig, type Rig } from './support/rig';
import { waitFor } from './support/wait';

describe('text typed to submit that shows on the screen (Enter waits longer for it to show)', () => {
  it('is printable text, not keys, mouse reports or a terminal string', () => {
    for (const text of ['run the tests', 'é', 'a\x1b[B', '\x1b[200~pasted\x1b[201~']) expect(shows(text), JSON.stringify(text)).toBe(true);
    const keys = ['\x1b[B', '\x1b\x1b[A', '\x1bx', '\x1bOP', '\x1b[<0;10;5M', '\x1b[97:5u', '\x1b]11;rgb:0/0/0\x07', '\x1b]11;rgb:0/0/0\x1b\\', '\r', '  ', '\u0085'];
    for (const text of keys) expect(shows(text), JSON.stringify(text)).toBe(false);
  });
});

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
    /** Everything the agent received, as one text. */
    const said = () => reads().join('');
    const reads = () =>
      (fs.existsSync(rig.inputLog) ? fs.readFileSync(rig.inputLog, 'utf8') : '')
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
      await engine.write({ id: session.id, text: 'run the tests', submit: true });
      await waitFor(async () => (await screen(session.id)).includes('submitted: run the tests'), 'the submitted message');
      expect(reads()).toEqual(['run the tests', '\r']);
    });

    it('text sent to submit to an agent that reads nothing for a while (as Codex at its start) is submitted once the agent shows it, not joined to its Enter as a paste', async () => {
      rig.env.FAKE_BUSY = '4';
      const session = await ready('busy');
      await engine.write({ id: session.id, text: 'run the tests', submit: true });
      await waitFor(async () => /submitted: run the tests|Pasted text/.test(await screen(session.id)), 'the message', 30_000);
      expect(await screen(session.id)).toContain('submitted: run the tests');
      expect(reads()).toEqual(['run the tests', '\r']);
    });

    it("two texts sent to submit one after the other are each submitted, in order: the reply comes once the text is typed, and the second waits for the first one's Enter", async () => {
      const session = await ready('twice');
      await engine.write({ id: session.id, text: 'first', submit: true });
      await engine.write({ id: session.id, text: 'second', submit: true });
      await waitFor(async () => (await screen(session.id)).includes('submitted: second'), 'the second message');
      expect(await screen(session.id)).toContain('submitted: first');
      expect(reads()).toEqual(['first', '\r', 'second', '\r']);
    });

    it("a submit with nothing behind it looks at the screen no more once its Enter is typed: what comes next waits for the agent to take it in", async () => {
      const session = await ready('once');
      const looks: number[] = [];
      let enteredAt = Infinity;
      const { backend } = engine;
      const visible = backend.visible.bind(backend);
      const write = backend.write.bind(backend);
      backend.visible = async (id) => (id === session.id && looks.push(performance.now()), visible(id));
      backend.write = async (id, data) => {
        await write(id, data);
        if (id === session.id && data === '\r') enteredAt = Math.min(enteredAt, performance.now());
      };
      await engine.write({ id: session.id, text: 'only this', submit: true });
      await waitFor(async () => (await screen(session.id)).includes('submitted: only this'), 'the message');
      // Every Enter still to come has been typed, and nothing waits behind it.
      await (engine as unknown as { terminals: { idle(): Promise<void> } }).terminals.idle();
      expect(enteredAt).toBeLessThan(Infinity);
      expect(looks.filter((at) => at > enteredAt)).toEqual([]);
      // The next text waits for it all the same (the agent reads each on its own).
      await engine.write({ id: session.id, text: 'and this', submit: true });
      await waitFor(async () => (await screen(session.id)).includes('submitted: and this'), 'the second message');
      expect(reads()).toEqual(['only this', '\r', 'and this', '\r']);
    });

    it("text to submit waits for a CLI's ready screen the first time (what such a CLI reads before it is lost), and is refused while its screen asks something", async () => {
      const go = `${rig.home}/go-${backend}`;
      // Like opencode at its start: it drops what it reads before its input box shows.
      rig.fake('late', `#!/bin/bash\necho loading\nwhile [ ! -f '${go}' ]; do sleep 0.05; done\nwhile read -r -t 0.2 drop; do echo "dropped: $drop"; done\necho "Ask anything"\nread -r line\necho "got: $line"\nread -r again\necho "then: $again"\nexec sleep 600\n`);
      rig.fake('asking', `#!/bin/bash\necho "Trust this folder?"\nexec sleep 600\n`);
      rig.writeCatalogue(`[cli.late]\ncommand = "late"\nready = 'Ask anything'\n\n[cli.asking]\ncommand = "asking"\nready = 'Ask anything'\nsetup = ['Trust this folder\\?']\n`);
      // The catalogue is read again when it changes.
      await waitFor(() => engine.catalogue.clis.has('late') && engine.catalogue.clis.has('asking'), 'the catalogue read again');
      const late = await engine.createSession({ cli: 'late', cwd: rig.home, name: 'late' });
      await waitFor(async () => (await screen(late.id)).includes('loading'), 'its splash');
      let typed = false;
      const sent = engine.write({ id: late.id, text: 'hello', submit: true }).then(() => (typed = true));
      // Not typed while its splash shows: ten looks at it later (typing takes one tmux command).
      for (let i = 0; i < 10; i++) expect(await screen(late.id)).not.toContain('hello');
      expect(typed).toBe(false);
      fs.writeFileSync(go, '');
      await sent;
      await waitFor(async () => (await screen(late.id)).includes('got: hello'), 'the text, read once it was ready');
      expect(typed).toBe(true);
      expect(await screen(late.id)).not.toContain('dropped');
      // Ready once: the next text is typed at once.
      await engine.write({ id: late.id, text: 'more', submit: true });
      await waitFor(async () => (await screen(late.id)).includes('then: more'), 'the next text');

      const asking = await engine.createSession({ cli: 'asking', cwd: rig.home, name: 'asking' });
      await waitFor(async () => (await screen(asking.id)).includes('Trust this folder?'), 'its question');
      await expect(engine.write({ id: asking.id, text: 'yes please', submit: true })).rejects.toMatchObject({ code: 'conflict', message: 'session "asking" asks "Trust this folder?": answer it first (nothing was typed)' });
    }, 60_000);

    it('a long text (a pasted log) arrives byte for byte: newlines stay newlines, with tabs, NULs and every script', async () => {
      const session = await ready('long text');
      const text = Array.from({ length: 6000 }, (_, i) => `line ${i}\tnaïve € 日本 🙂 \u0000 end\n`).join('');
      expect(Buffer.byteLength(text)).toBeGreaterThan(200_000);
      await engine.write({ id: session.id, text });
      await waitFor(() => said().length >= text.length, 'the whole text', 30_000);
      expect(said()).toBe(text);
      // Typed once more, short: the way to type a few keys is the same as before.
      await engine.write({ id: session.id, text: 'ok\n' });
      await waitFor(() => said().endsWith('ok\n'), 'the short text');
      expect(said()).toBe(`${text}ok\n`);
    }, 60_000);

    /** A viewer like xterm.js in a page: it answers every query in what it is shown. */
    async function viewer(id: string, view: { cols: number; rows: number; colors?: { fg: string; bg: string }; inUse?: boolean; viewOnly?: boolean }) {
      const term = new headless.Terminal({ cols: view.cols, rows: view.rows, allowProposedApi: true });
      let attachment: Attachment | null = null;
      const said: string[] = [];
      term.onData((data) => {
        said.push(data);
        attachment?.write(data);
      });
      attachment = await engine.attach(id, { ...view, onData: (data) => term.write(data) });
      viewers.push({ term, attachment });
      return { term, attachment, said, shows: (text: string) => viewportText(term).includes(text) };
    }
    const viewers: { term: InstanceType<typeof headless.Terminal>; attachment: Attachment }[] = [];
    afterEach(() => {
      for (const v of viewers.splice(0)) {
        v.attachment.close();
        v.term.dispose();
      }
    });
    const daReply = '\x1b[?1;2c';
    const colorReply = (bg: string) => `\x1b]11;${xtermColor(bg)}\x1b\\`;

    it("an agent's questions are answered once, by its own terminal, never by viewers, not even from a replay", async () => {
      rig.env.FAKE_QUERIES = '1';
      const session = await ready('asks');
      // Answered with nobody watching: the agent's own terminal did it.
      await waitFor(() => said().includes('rgb:'), 'the answers');
      const first = viewerFor(await viewer(session.id, { cols: 120, rows: 40 }));
      await waitFor(() => first.shows('FRESH START'), 'the first viewer to show the screen');
      const second = await viewer(session.id, { cols: 100, rows: 30 });
      await waitFor(() => second.shows('FRESH START'), 'the second viewer to show the screen');
      // The viewers did answer what they were shown (on the pty backend, a replay of the query)…
      if (backend === 'pty') expect(second.said).toContain(daReply);
      // An answer that comes late (on a busy machine, after tmux stopped waiting for it) is
      // still an answer: it must not reach the agent as keys either.
      second.attachment.write('\x1b[>0;276;0c');
      // Typing after it arrives after anything they sent: none of it reached the agent.
      second.attachment.write('z');
      await waitFor(() => said().endsWith('z'), 'the typing');
      expect(said()).toBe(`${daReply}${colorReply(DEFAULT_COLORS.bg)}z`);
    });

    it('the colours an agent is told are those of the viewer in use', async () => {
      const light = { fg: '#1f2328', bg: '#fbfbfc' };
      const session = await ready('colours');
      const watcher = await viewer(session.id, { cols: 120, rows: 40, colors: light });
      await waitFor(() => watcher.shows('FRESH START'), 'the viewer to show the screen');
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(colorReply(DEFAULT_COLORS.bg)), 'the answer before anyone used a viewer');
      // Typing in the viewer makes it the one in use.
      watcher.attachment.write('?');
      await waitFor(() => said().includes(colorReply(light.bg)), "the viewer's colours");
    });

    it('a viewer that only watches never resizes the agent; the one the person uses does', async () => {
      const session = await ready('sizes');
      const watcher = await viewer(session.id, { cols: 50, rows: 20 });
      await waitFor(() => watcher.shows('>'), 'the watcher to show the screen');
      await engine.write({ id: session.id, text: '#' });
      await waitFor(async () => (await screen(session.id)).includes('size: 48 160'), 'the size it started with');
      const used = await viewer(session.id, { cols: 100, rows: 30 });
      used.attachment.write('#');
      await waitFor(async () => (await screen(session.id)).includes('size: 30 100'), "the size of the viewer in use");
      // A resize of the viewer in use follows too.
      used.attachment.resize(90, 25);
      await waitFor(async () => {
        await engine.write({ id: session.id, text: '#' });
        return (await screen(session.id)).includes('size: 25 90');
      }, 'the new size');
    });

    it('a viewer in use from its start gives the agent its size and colours as it attaches; one that may only look never does', async () => {
      const light = { fg: '#1f2328', bg: '#fbfbfc' };
      const session = await ready('in use');
      const watcher = await viewer(session.id, { cols: 50, rows: 20, colors: light, inUse: true, viewOnly: true });
      await waitFor(() => watcher.shows('>'), 'the watcher to show the screen');
      // One key a read: the agent answers a key read alone.
      await engine.write({ id: session.id, text: '#' });
      await waitFor(async () => (await screen(session.id)).includes('size: 48 160'), 'the size it started with');
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(colorReply(DEFAULT_COLORS.bg)), 'the colours it started with');
      // Neither typed into nor resized: in use as it attached.
      await viewer(session.id, { cols: 100, rows: 30, colors: light, inUse: true });
      await engine.write({ id: session.id, text: '#' });
      await waitFor(async () => (await screen(session.id)).includes('size: 30 100'), 'the size of the viewer in use');
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(colorReply(light.bg)), 'the colours of the viewer in use');
    });

    // (pty agents end with their daemon: nothing to reattach.)
    it.skipIf(backend === 'pty')('after a daemon restart, the viewer in use sets its colours again, whatever the last daemon set', async () => {
      const light = { fg: '#1f2328', bg: '#fbfbfc' };
      const session = await ready('restarted');
      const lit = await viewer(session.id, { cols: 100, rows: 30, colors: light, inUse: true });
      await waitFor(() => lit.shows('>'), 'the viewer to show the screen');
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(colorReply(light.bg)), 'the light colours');
      for (const v of viewers.splice(0)) v.attachment.close();
      await engine.close();
      engine = await rig.open({ backend });
      // The page turned dark meanwhile: the colours it asks for are the new daemon's own default.
      const dark = await viewer(session.id, { cols: 100, rows: 30, colors: DEFAULT_COLORS, inUse: true });
      await waitFor(() => dark.shows('>'), 'the viewer to show the screen again');
      const before = said().length;
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().slice(before).includes(colorReply(DEFAULT_COLORS.bg)), 'the dark colours');
    });

    it('a session made while a viewer changes the colours for new agents keeps the ones it was made with, until its own viewer in use sets them', async () => {
      const light = { fg: '#1f2328', bg: '#fbfbfc' };
      // The colours for new agents change while this one's process starts (a viewer of another
      // session, in use with the light theme, between the spawn's start and its end).
      const rt = (engine as unknown as { rt: { colors: { fg: string; bg: string }; backend: { spawn: (options: unknown) => Promise<unknown> } } }).rt;
      const spawn = rt.backend.spawn.bind(rt.backend);
      rt.backend.spawn = (options) => {
        const spawned = spawn(options);
        rt.colors = light;
        return spawned;
      };
      let session;
      try {
        session = await ready('made-dark');
      } finally {
        rt.backend.spawn = spawn;
      }
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(colorReply(DEFAULT_COLORS.bg)), 'the colours it was made with');
      const lit = await viewer(session.id, { cols: 100, rows: 30, colors: light, inUse: true });
      await waitFor(() => lit.shows('>'), 'the viewer to show the screen');
      const before = said().length;
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().slice(before).includes(colorReply(light.bg)), "the viewer's colours");
    });

    it("after a flood, the agent's screen is what it printed last, and its questions are still answered", async () => {
      const session = await ready('floods');
      await engine.write({ id: session.id, text: '!' });
      await waitFor(async () => (await engine.backend.visible(session.id)).includes('after the flood'), 'the screen after the flood');
      expect(await engine.backend.visible(session.id)).toMatch(/flood line 5999 x+\nafter the flood\n>/);
      await engine.write({ id: session.id, text: '?' });
      await waitFor(() => said().includes(daReply), 'the answer after the flood');
    });

    it('(control) text and Enter in one write is a paste to such an agent', async () => {
      const session = await ready('pastes');
      await engine.write({ id: session.id, text: 'run the tests\r' });
      await waitFor(async () => (await screen(session.id)).includes('[Pasted text'), 'the paste');
      expect(await screen(session.id)).not.toContain('submitted:');
    });
  });
}

function viewportText(term: InstanceType<typeof headless.Terminal>): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
  return lines.join('\n');
}

const viewerFor = <T>(v: T) => v;
