// The lifecycle against the real agent CLIs (npm run test:real), each with a throwaway HOME and
// no network: a never-typed session, stopped and started, comes back running clean by itself,
// once, with the lost key named; and the screens a new user meets first (sign-in, API key,
// trust) are "needs you". Prints what it measured.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine';
import { Store } from '../../store/store';
import { waitFor } from '../support/wait';
import { killTmux } from '../support/tmux';
import { OFFLINE_ENV, prepareHome, REAL_CLIS } from './realClis';

const cache = process.env.CORRAL_REAL_CLIS;
const figures: string[] = [];

afterAll(() => {
  if (figures.length) console.log(`\nreal CLIs, never-typed session stopped and started:\n${figures.join('\n')}`);
});

describe.skipIf(!cache)('the real CLIs', () => {
  for (const cli of REAL_CLIS) {
    it(`${cli.name}: a dead key starts clean by itself, once, with the lost key named`, async () => {
      const world = await openWorld(cli.name, true);
      try {
        const { engine } = world;
        const session = await engine.createSession({ cli: cli.name, cwd: world.cwd, name: cli.name });
        await waitFor(async () => (await engine.screen({ id: session.id, lines: 100 })).text.trim() !== '', `${cli.name} to draw`, 90_000);
        await engine.stopSession({ id: session.id });
        // A CLI that picks its own id learns it only from a conversation: give it a key whose
        // conversation is gone, as one the CLI deleted would be.
        const key = world.storedKey(session.id) ?? world.setKey(session.id, cli.deadKeyLike());
        const t0 = Date.now();
        await engine.startSession({ id: session.id });
        const events = await waitFor(
          async () => {
            const list = (await engine.events({ id: session.id })).events;
            const lost = list.findIndex((e) => e.kind === 'resume-failed');
            return lost >= 0 && list.slice(lost).some((e) => e.kind === 'started') ? list : null;
          },
          `${cli.name}'s dead key to be known`,
          150_000,
        );
        const seconds = ((events.find((e) => e.kind === 'resume-failed')!.at - t0) / 1000).toFixed(1);
        const lost = events.filter((e) => e.kind === 'resume-failed');
        expect(lost).toHaveLength(1);
        // Named by its first characters; the database keeps all of it.
        expect(lost[0]!.detail.droppedKeyHint).toBe(`${key.slice(0, 8)}…`);
        expect(world.storedEvents(session.id).find((e) => e.kind === 'resume-failed')?.detail.droppedKey).toBe(key);
        expect(events.map((e) => e.kind)).not.toContain('resumed');
        // The clean start is alive and stays up.
        await waitFor(async () => (await engine.screen({ id: session.id, lines: 100 })).text.trim() !== '', 'the clean start to draw', 90_000);
        expect(['starting', 'running']).toContain((await engine.getSession({ id: session.id })).state);
        expect(world.storedKey(session.id)).not.toBe(key);
        figures.push(`  ${cli.name.padEnd(9)} ${String(lost[0]!.detail.evidence).padEnd(8)} known ${seconds} s after the start`);
      } finally {
        await world.close();
      }
    });

    it.runIf(!!cli.learnsKey)(`${cli.name}: its own id is learned once a message is sent, and the next start resumes it`, async () => {
      const world = await openWorld(cli.name, true);
      try {
        const { engine } = world;
        const session = await engine.createSession({ cli: cli.name, cwd: world.cwd, name: cli.name });
        await waitFor(async () => (await engine.screen({ id: session.id, lines: 100 })).text.includes(cli.learnsKey!.ready), `${cli.name} to be ready`, 120_000);
        const sent = Date.now();
        await engine.write({ id: session.id, text: 'hello', submit: true });
        const learned = await waitFor(async () => (await engine.events({ id: session.id })).events.find((e) => e.kind === 'key-learned'), 'the key to be learned', 90_000);
        const key = world.storedKey(session.id)!;
        expect(learned.detail.keyHint).toBe(`${key.slice(0, 8)}…`);
        figures.push(`  ${cli.name.padEnd(9)} key learned ${((learned.at - sent) / 1000).toFixed(1)} s after the first message`);
        await engine.stopSession({ id: session.id });
        expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
        expect((await engine.events({ id: session.id })).events.filter((e) => e.kind === 'resume-failed')).toEqual([]);
      } finally {
        await world.close();
      }
    });

    it(`${cli.name}: a first prompt is typed once the agent is ready, and only once`, async () => {
      // Claude Code meets its trust question first: the prompt must wait through it.
      const world = await openWorld(cli.name, cli.name === 'claude' ? 'untrusted' : true);
      try {
        const { engine } = world;
        const words = `first words ${crypto.randomBytes(3).toString('hex')}`;
        const session = await engine.createSession({ cli: cli.name, cwd: world.cwd, name: cli.name, prompt: words });
        const t0 = Date.now();
        if (cli.name === 'claude') {
          await waitFor(async () => (await engine.getSession({ id: session.id })).needsYou, 'the trust question', 120_000);
          expect((await engine.events({ id: session.id })).events.map((e) => e.kind)).not.toContain('prompt-typed');
          // "No, exit" is selected: Down to "Yes, I trust this folder", then Enter.
          await engine.write({ id: session.id, text: '\x1b[B', submit: true });
        }
        const typed = await waitFor(async () => (await engine.events({ id: session.id })).events.find((e) => e.kind.startsWith('prompt-')), 'the first prompt', 150_000);
        expect(typed.kind).toBe('prompt-typed');
        // Submitted, not left in the input box: the CLI saved it as its conversation's first message.
        await waitFor(() => savedUnder(world.home, words), `${cli.name} to save the prompt as a message`, 60_000);
        await waitFor(async () => (await engine.screen({ id: session.id, lines: 200 })).text.includes(words), 'the prompt on the screen', 30_000);
        expect((await engine.events({ id: session.id })).events.filter((e) => e.kind.startsWith('prompt-'))).toHaveLength(1);
        figures.push(`  ${cli.name.padEnd(9)} first prompt typed ${((typed.at - t0) / 1000).toFixed(1)} s after the create`);
      } finally {
        await world.close();
      }
    });

    it.runIf(cli.asksFirst)(`${cli.name}: the first screens of a new user are "needs you"`, async () => {
      // Claude Code will not start at all offline without its onboarding done: its new user
      // meets the trust prompt in each new folder instead.
      const world = await openWorld(cli.name, cli.name === 'claude' ? 'untrusted' : false);
      try {
        const session = await world.engine.createSession({ cli: cli.name, cwd: world.cwd, name: `${cli.name} new` });
        const view = await waitFor(async () => {
          const v = await world.engine.getSession({ id: session.id });
          return v.needsYou?.source === 'screen' ? v : null;
        }, `${cli.name}'s first screen to be "needs you"`, 120_000);
        figures.push(`  ${cli.name.padEnd(9)} first screen: needs you ("${view.needsYou!.detail}")`);
      } finally {
        await world.close();
      }
    });
  }
});

async function openWorld(cli: string, ready: boolean | 'untrusted') {
  const started = Date.now();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `corral-real-${cli}-`));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  fs.mkdirSync(tmp);
  if (ready) await prepareHome(cli, { home, cwd, trusted: ready !== 'untrusted' });
  const socket = `corral-real-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  // The CLIs' own temporary files (Claude's, Codex's daemon socket, Gemini's error reports) go with the rest.
  const env = { ...process.env, ...OFFLINE_ENV, HOME: home, TMPDIR: tmp, PATH: `${path.join(cache!, 'node_modules', '.bin')}:${process.env.PATH}` };
  const engine = await Engine.open({ home: path.join(root, 'corral'), tmuxSocket: socket, env, backend: 'tmux', holder: 'the real-CLI tests' });
  const db = () => Store.open(path.join(root, 'corral', 'corral.db'));
  return {
    engine,
    cwd,
    home,
    storedEvents(id: string) {
      const store = db();
      try {
        return store.listEvents(id);
      } finally {
        store.close();
      }
    },
    storedKey(id: string): string | null {
      const store = db();
      try {
        return store.getSession(id)?.resumeKey ?? null;
      } finally {
        store.close();
      }
    },
    setKey(id: string, key: string): string {
      const store = db();
      try {
        store.updateSession(id, { resumeKey: key });
      } finally {
        store.close();
      }
      return key;
    },
    async close() {
      await engine.close().catch(() => {});
      killTmux(socket);
      endProcessesOf(home);
      sweepAfter(started);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Whether a file under the folder (a CLI's own files) holds the words. */
function savedUnder(folder: string, words: string): boolean {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    try {
      if (fs.statSync(file).size < 20_000_000 && fs.readFileSync(file, 'utf8').includes(words)) return true;
    } catch {
      // Gone while looked at.
    }
  }
  return false;
}

/** CLIs leave helpers behind (Codex's app-server): whatever runs with this HOME goes too. */
function endProcessesOf(home: string): void {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone, or not ours
    }
  }
}

/** Codex keeps its app-server sockets in /tmp/codex-daemon-UID whatever TMPDIR says: what this test's run made there goes. */
function sweepAfter(since: number): void {
  const dir = `/tmp/codex-daemon-${process.getuid?.() ?? 0}`;
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry);
    if (fs.lstatSync(file).mtimeMs >= since - 1_000) fs.rmSync(file, { force: true });
  }
  if (fs.readdirSync(dir).length === 0 && fs.statSync(dir).mtimeMs >= since - 1_000) fs.rmdirSync(dir);
}
