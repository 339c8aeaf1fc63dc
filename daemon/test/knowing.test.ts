// What the engine knows about each agent: activity, keys the CLI picks itself (from its output or
// its files, stored while it runs), the boxed stream, git context, archive and restore.
// Real tmux on a throwaway socket (and the pty backend where it says), fake agents.
/* eslint-disable no-control-regex -- the boxed stream test looks for escape sequences */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PtyBackend } from '../backends/ptyBackend';
import { IDLE_LOOK_MS } from '../engine/lookSchedule';
import type { Engine } from '../engine/engine';
import { countedGit } from './support/countedGit';
import { makeRig, storedEvents, storedKey, type Rig } from './support/rig';
import { sleep, waitFor } from './support/wait';
import { outputText } from './support/outputText';

let rig: Rig;
beforeEach(async () => {
  rig = await makeRig();
});
afterEach(async () => {
  await rig.cleanup();
});

const PICKED = '019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8';

describe.each(['tmux', 'pty'] as const)('activity (%s)', (backend) => {
  it('is working after output, idle when quiet, needs-you when flagged, and nothing when stopped', async () => {
    let offset = 0;
    const engine = await rig.open({ backend, clock: { now: () => Date.now() + offset }, attentionIntervalMs: 60_000 });
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'busy' });
    const activity = async () => (await engine.getSession({ id: session.id })).activity;
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('FRESH START'), 'the agent');
    await engine.watchAttention();
    expect(await activity()).toBe('working');

    offset = 10_000; // ten seconds later, nothing printed since
    await engine.watchAttention();
    expect(await activity()).toBe('idle');

    offset = 0;
    await engine.write({ id: session.id, text: 'hello\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: hello'), 'the echo');
    await engine.watchAttention();
    expect(await activity()).toBe('working');

    await engine.flagAttention({ id: session.id, message: 'approve?' });
    expect(await activity()).toBe('needs-you');
    await engine.stopSession({ id: session.id });
    expect(await activity()).toBeNull();
  });
});

describe('a key the CLI picks itself', () => {
  it('is learned from its output while it runs, and the next start resumes exactly it', async () => {
    rig.fake('picker', `#!/bin/bash\necho "picker $*" >> '${rig.argvLog}'\n[ "$1" = resume ] && { echo "RESUMED $2"; exec sleep 600; }\necho "session id: ${PICKED}"\nexec sleep 600\n`);
    rig.writeCatalogue(`[cli.picker]\ncommand = "picker"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'session id: ([0-9a-f-]{36})'\n`);
    const engine = await rig.open({ attentionIntervalMs: 60_000 });
    const session = await engine.createSession({ cli: 'picker', cwd: rig.home, name: 'picks' });
    expect(storedKey(rig, session.id)).toBeNull();
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('session id'), 'the id on screen');
    await engine.watchAttention();
    // Stored while the agent still runs: a crash now would not lose it.
    expect((await engine.getSession({ id: session.id })).state).toBe('running');
    expect(storedKey(rig, session.id)).toBe(PICKED);
    expect(storedEvents(rig, session.id).find((e) => e.kind === 'key-learned')?.detail).toMatchObject({ key: PICKED, from: 'output' });
    expect((await engine.events({ id: session.id })).events.find((e) => e.kind === 'key-learned')?.detail).toEqual({ keyHint: `${PICKED.slice(0, 8)}…`, from: 'output' });
    await engine.stopSession({ id: session.id });
    expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    await waitFor(() => rig.launches().at(-1) === `picker resume ${PICKED}`, 'the resume with the learned id');
  });

  it('is learned from the file it writes (its own, not an older one or another folder’s), and the next start resumes exactly it', async () => {
    const store = path.join(rig.home, 'filer-store');
    const day = path.join(store, 'sessions', '2026', '11', '30');
    fs.mkdirSync(day, { recursive: true });
    const meta = (id: string, cwd: string) => `${JSON.stringify({ type: 'session_meta', payload: { id, timestamp: '2026-11-30T10:00:00Z', cwd } })}\n`;
    // An older conversation in the same folder, from before this launch.
    const old = path.join(day, 'rollout-2026-11-30T09-00-00-0000aaaa-0000-4000-8000-000000000001.jsonl');
    fs.writeFileSync(old, meta('0000aaaa-0000-4000-8000-000000000001', rig.home));
    fs.utimesSync(old, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    // Like Codex: the file (named after an id it picks) appears at the first message.
    rig.fake(
      'filer',
      `#!/bin/bash
echo "filer $*" >> '${rig.argvLog}'
[ "$1" = resume ] && { echo "RESUMED $2"; exec sleep 600; }
echo ready
read -r first
printf '%s' '${meta('0000bbbb-0000-4000-8000-000000000002', '/somewhere/else').trim()}' > "$FILER_HOME/sessions/2026/11/30/rollout-2026-11-30T10-00-00-0000bbbb.jsonl"
printf '{"timestamp":"2026-11-30T10:00:01Z","type":"session_meta","payload":{"id":"${PICKED}","cwd":"%s"}}\\n' "$(pwd)" > "$FILER_HOME/sessions/2026/11/30/rollout-2026-11-30T10-00-01-${PICKED}.jsonl"
echo "got $first"
exec sleep 600
`,
    );
    rig.writeCatalogue(`[cli.filer]
command = "filer"
resume = ["resume", "{cli_session_id}"]
env = { FILER_HOME = "${store}" }

[cli.filer.key_from_file]
glob = "\${FILER_HOME}/sessions/*/*/*/rollout-*.jsonl"
pattern = '^(?=.*"cwd":"{cwd}").*"id":"([0-9a-f-]{36})"'
`);
    // The engine's clock, moved on by hand: files are looked for every two seconds of it.
    let skipped = 0;
    const engine = await rig.open({ attentionIntervalMs: 60_000, clock: { now: () => Date.now() + skipped } });
    expect(engine.catalogue.problems).toEqual([]);
    const session = await engine.createSession({ cli: 'filer', cwd: rig.home, name: 'files' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('ready'), 'the agent');
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBeNull(); // no file of its own yet: the old one is not it
    await engine.write({ id: session.id, text: 'first message\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('got first message'), 'the first message');
    skipped += 2_100;
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBe(PICKED);
    expect(storedEvents(rig, session.id).find((e) => e.kind === 'key-learned')?.detail).toMatchObject({ key: PICKED, from: 'file' });
    expect((await engine.events({ id: session.id })).events.find((e) => e.kind === 'key-learned')?.detail).toEqual({ keyHint: `${PICKED.slice(0, 8)}…`, from: 'file' });
    await engine.stopSession({ id: session.id });
    await engine.startSession({ id: session.id });
    await waitFor(() => rig.launches().at(-1) === `filer resume ${PICKED}`, 'the resume with the learned id');
  });

  it('sessions of it in one folder each learn their own conversation: not one never typed into, not a resume, not one that submitted only before the file was made by another', async () => {
    const store = path.join(rig.home, 'twin-store');
    fs.mkdirSync(path.join(store, 'sessions'), { recursive: true });
    // Like Codex: a question first (its trust prompt), then the conversation's file, named after
    // an id it picks (here: the first message), appears at the first message.
    rig.fake(
      'twin',
      `#!/bin/bash
echo "twin $*" >> '${rig.argvLog}'
[ "$1" = resume ] && { echo "RESUMED $2"; exec sleep 600; }
echo "trust this folder?"
read -r answer
echo ready
read -r first
printf '{"type":"session_meta","payload":{"id":"%s","cwd":"%s"}}\n' "$first" "$(pwd)" > "$TWIN_HOME/sessions/rollout-$first.jsonl"
echo "got $first"
exec sleep 600
`,
    );
    rig.writeCatalogue(`[cli.twin]
command = "twin"
resume = ["resume", "{cli_session_id}"]
env = { TWIN_HOME = "${store}" }

[cli.twin.key_from_file]
glob = "\${TWIN_HOME}/sessions/rollout-*.jsonl"
pattern = '^(?=.*"cwd":"{cwd}").*"id":"([0-9a-f-]{36})"'
`);
    let skipped = 0;
    const engine = await rig.open({ attentionIntervalMs: 60_000, clock: { now: () => Date.now() + skipped } });
    const shows = (id: string, text: string) => waitFor(async () => (await engine.screen({ id })).text.includes(text), text);
    /** Every session looks at the files once more (they look every two seconds of the engine's clock). */
    const look = async () => {
      skipped += 2_100;
      await engine.watchAttention();
    };
    const uuid = (n: number) => `0000000${n}-0000-4000-8000-00000000000${n}`;
    const make = async (name: string) => {
      const session = await engine.createSession({ cli: 'twin', cwd: rig.home, name });
      await shows(session.id, 'trust this folder?');
      return session.id;
    };
    const say = async (id: string, text: string, then: string) => {
      await engine.write({ id, text: `${text}\r` });
      await shows(id, then);
    };
    // Made first, so each looks before the ones made after it.
    const never = await make('never typed');
    const resumed = await make('resumed');
    const early = await make('answered first');
    const late = await make('submitted first');
    await say(resumed, '', 'ready');
    await say(resumed, uuid(1), `got ${uuid(1)}`);
    await look();
    expect(storedKey(rig, resumed)).toBe(uuid(1));
    await engine.stopSession({ id: resumed });
    await engine.startSession({ id: resumed });
    await shows(resumed, `RESUMED ${uuid(1)}`);
    // One answers its question; then another answers and submits its first message.
    await say(early, '', 'ready');
    await say(late, '', 'ready');
    await say(late, uuid(2), `got ${uuid(2)}`);
    await look();
    expect([storedKey(rig, never), storedKey(rig, resumed), storedKey(rig, early), storedKey(rig, late)]).toEqual([null, uuid(1), null, uuid(2)]);
    // Its own first message, later: its own conversation.
    await say(early, uuid(3), `got ${uuid(3)}`);
    await look();
    expect([storedKey(rig, never), storedKey(rig, resumed), storedKey(rig, early), storedKey(rig, late)]).toEqual([null, uuid(1), uuid(3), uuid(2)]);
    expect(storedEvents(rig, resumed).filter((e) => e.kind === 'key-learned')).toHaveLength(1);
  });

  it('rejects a key_from_file without a group, or with a relative glob, naming the field', async () => {
    rig.writeCatalogue(`[cli.bad]\ncommand = "faker"\n[cli.bad.key_from_file]\nglob = "sessions/*.jsonl"\npattern = 'no group'\n`);
    const engine = await rig.open();
    const messages = engine.catalogue.problems.map((p) => p.message);
    const file = path.join(rig.home, 'clis.toml');
    expect(messages).toContain(`${file}:4: cli "bad", field key_from_file.glob: must be an absolute path (it may start with ~/ or a $VARIABLE)`);
    expect(messages).toContain(`${file}:5: cli "bad", field key_from_file.pattern: needs a capture group for the id`);
    expect(engine.catalogue.clis.has('bad')).toBe(false);
  });
});

describe.each(['tmux', 'pty'] as const)('a key the CLI prints, looked for while it runs (%s)', (backend) => {
  it('is learned when it shows in two parts with a look between them', async () => {
    // The first half, then (after a line nobody sees typed) the rest on the same line.
    rig.fake('halves', `#!/bin/bash\nprintf 'session id: ${PICKED.slice(0, 14)}'\nread -rs go\necho '${PICKED.slice(14)}'\necho done\nexec sleep 600\n`);
    rig.writeCatalogue(`[cli.halves]\ncommand = "halves"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'session id: ([0-9a-f-]{36})'\n`);
    const engine = await rig.open({ backend, attentionIntervalMs: 60_000 });
    const session = await engine.createSession({ cli: 'halves', cwd: rig.home, name: 'halves' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('session id: '), 'the first half');
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBeNull();
    await engine.write({ id: session.id, text: 'go\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('done'), 'the rest');
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBe(PICKED);
  });

  it('is learned when it shows after many lines already looked at', async () => {
    rig.fake('later', `#!/bin/bash\nseq 1 300\nread -rs go\nseq 301 400\necho 'session id: ${PICKED}'\necho done\nexec sleep 600\n`);
    rig.writeCatalogue(`[cli.later]\ncommand = "later"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'session id: ([0-9a-f-]{36})'\n`);
    const engine = await rig.open({ backend, attentionIntervalMs: 60_000 });
    const session = await engine.createSession({ cli: 'later', cwd: rig.home, name: 'later' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('300'), 'the first lines');
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBeNull();
    await engine.write({ id: session.id, text: 'go\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('done'), 'the key');
    await engine.watchAttention();
    expect(storedKey(rig, session.id)).toBe(PICKED);
  });
});

describe('a key the CLI prints, once learned while it runs', () => {
  it('is not looked for again in that launch, and a flood after it loses nothing', async () => {
    rig.fake('flooder', `#!/bin/bash\necho 'session id: ${PICKED}'\nread -rs go\nseq 1 3000\necho done\nexec sleep 600\n`);
    rig.writeCatalogue(`[cli.flooder]\ncommand = "flooder"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'session id: ([0-9a-f-]{36})'\n`);
    const pty = new PtyBackend();
    let captures = 0;
    const backend = new Proxy(pty, {
      get(target, name) {
        if (name === 'capture') return (id: string, lines: number) => (captures++, target.capture(id, lines));
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const engine = await rig.open({ backend, attentionIntervalMs: 60_000 });
    const session = await engine.createSession({ cli: 'flooder', cwd: rig.home, name: 'floods' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('session id'), 'the key');
    let before = captures;
    await engine.watchAttention();
    expect(captures).toBe(before + 1);
    expect(storedKey(rig, session.id)).toBe(PICKED);

    await engine.write({ id: session.id, text: 'go\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('done'), 'the flood');
    before = captures;
    await engine.watchAttention();
    expect(captures).toBe(before);
    expect(storedKey(rig, session.id)).toBe(PICKED);
    expect(storedEvents(rig, session.id).filter((e) => e.kind === 'key-learned')).toHaveLength(1);
  });
});

describe('boxed CLIs', () => {
  const ESCAPES = '\\033[?1049h\\033[?1000;1006h\\033[?2004h\\033[3J\\033[31mBOXED\\033[0m';
  const viewerOf = async (engine: Engine, id: string) => {
    let seen = '';
    const text = outputText();
    const attachment = await engine.attach(id, { cols: 100, rows: 30, onData: (data) => (seen += text(data)) });
    await waitFor(() => seen.includes('BOXED'), 'the output in the viewer');
    await sleep(200);
    attachment.close();
    return seen;
  };

  it.each(['pty', 'tmux'] as const)('keep the viewer’s mouse, screen and history; a shell gets everything (%s)', async (backend) => {
    rig.fake('boxer', `#!/bin/bash\nprintf '${ESCAPES}\\n'\nexec sleep 600\n`);
    rig.writeCatalogue(`[cli.boxer]\ncommand = "boxer"\nboxed = true\n[cli.plain]\ncommand = "boxer"\n`);
    const engine = await rig.open({ backend });
    const boxed = await engine.createSession({ cli: 'boxer', cwd: rig.home, name: 'boxed' });
    const plain = await engine.createSession({ cli: 'plain', cwd: rig.home, name: 'plain' });
    await waitFor(async () => (await engine.screen({ id: plain.id })).text.includes('BOXED'), 'the output');
    const shownBoxed = await viewerOf(engine, boxed.id);
    for (const hidden of ['\x1b[?1049h', '\x1b[?1000', '1006h', '\x1b[3J']) expect(shownBoxed).not.toContain(hidden);
    expect(shownBoxed).toContain('\x1b[?2004h');
    expect(shownBoxed).toMatch(/\x1b\[31m(\x1b\[[0-9;]*[A-Za-z])*BOXED/);
    const shownPlain = await viewerOf(engine, plain.id);
    if (backend === 'pty') {
      // The pty backend hands the agent's bytes over as they came.
      expect(shownPlain).toContain('\x1b[?1049h\x1b[?1000;1006h\x1b[?2004h\x1b[3J');
    } else {
      // Through tmux the viewer stays on its main screen (so it has a history to scroll), and
      // tmux passes the agent's mouse request on.
      expect(shownPlain).not.toContain('\x1b[?1049h');
      expect(shownPlain).toMatch(/\x1b\[\?100[0-6]h/);
    }
  });
});

describe('git context', () => {
  it('shows the branch and whether there are uncommitted changes, and nothing outside a repository', async () => {
    const repo = path.join(rig.home, 'repo');
    fs.mkdirSync(repo);
    const env = { ...rig.env, HOME: rig.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, stdio: 'pipe' });
    git('init', '-q', '-b', 'feature/login');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    const engine = await rig.open({ env, gitIntervalMs: 100 });
    const inRepo = await engine.createSession({ cli: 'faker', cwd: repo, name: 'repo' });
    const outside = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'plain' });
    const gitOf = async (id: string) => (await engine.getSession({ id })).git;
    expect(await waitFor(() => gitOf(inRepo.id), 'the branch')).toEqual({ branch: 'feature/login', dirty: false });
    fs.writeFileSync(path.join(repo, 'b.txt'), 'new\n');
    await waitFor(async () => (await gitOf(inRepo.id))?.dirty, 'the change to show');
    expect(await gitOf(outside.id)).toBeNull();
    // Corral never takes git's index lock (an agent committing meanwhile must not meet it).
    expect(fs.existsSync(path.join(repo, '.git', 'index.lock'))).toBe(false);
  });

  it('asks git while a session works there, once more after it went quiet, when git says it changed, and otherwise seldom', async () => {
    const repo = path.join(rig.home, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    const env = { ...rig.env, HOME: rig.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    // A git on the daemon's PATH that notes each time it is asked.
    const counted = countedGit(rig.home, env);
    const asked = counted.runs;
    let offset = 0;
    // The watchers' own timers never fire here: each look and each git tick is the test's.
    const engine = await rig.open({ env: counted.env, clock: { now: () => Date.now() + offset }, attentionIntervalMs: 3_600_000, gitIntervalMs: 3_600_000 });
    const session = await engine.createSession({ cli: 'faker', cwd: repo, name: 'at work' });
    const gitOf = async () => (await engine.getSession({ id: session.id })).git;
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('FRESH START'), 'the agent');
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('working');
    await waitFor(async () => (await engine.refreshGit(), asked() > 0), 'git asked about a folder at work');
    expect(await gitOf()).toEqual({ branch: 'main', dirty: false });

    // The agent's last act before it went quiet: a file written (further down: not the folder itself).
    fs.writeFileSync(path.join(repo, 'src', 'done.txt'), 'done\n');
    offset = 10_000;
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('idle');
    let before = asked();
    await engine.refreshGit();
    expect(asked()).toBe(before + 1);
    expect(await gitOf()).toEqual({ branch: 'main', dirty: true });

    // Quiet since, and nothing git keeps changed: not asked at the next ticks.
    offset = 15_000;
    await engine.refreshGit();
    offset = 20_000;
    await engine.refreshGit();
    expect(asked()).toBe(before + 1);

    // A commit by hand: asked at the next tick.
    git('add', '.');
    git('commit', '-q', '-m', 'by hand');
    await engine.refreshGit();
    expect(asked()).toBe(before + 2);
    expect(await gitOf()).toEqual({ branch: 'main', dirty: false });

    // A file edited in place by hand: seen once the idle interval has passed.
    fs.writeFileSync(path.join(repo, 'src', 'done.txt'), 'done, edited\n');
    before = asked();
    await engine.refreshGit();
    expect(asked()).toBe(before);
    offset = 20_000 + IDLE_LOOK_MS;
    await engine.refreshGit();
    expect(asked()).toBe(before + 1);
    expect(await gitOf()).toEqual({ branch: 'main', dirty: true });

    // Work that began and ended between two ticks: the session started again (its agent busy
    // starting) and quiet again by the next tick, the file put back as committed, in place (no
    // stamp shows that). Asked once at that tick.
    offset = 30_000 + IDLE_LOOK_MS;
    await engine.stopSession({ id: session.id });
    await engine.startSession({ id: session.id });
    expect((await engine.getSession({ id: session.id })).activity).toBe('working');
    fs.writeFileSync(path.join(repo, 'src', 'done.txt'), 'done\n');
    offset = 40_000 + IDLE_LOOK_MS;
    await engine.watchAttention();
    expect((await engine.getSession({ id: session.id })).activity).toBe('idle');
    before = asked();
    await engine.refreshGit();
    expect(asked()).toBe(before + 1);
    expect(await gitOf()).toEqual({ branch: 'main', dirty: false });
  });
});

describe('archive', () => {
  it('takes a session out of the tab strip with everything kept, and restores it', async () => {
    const engine = await rig.open();
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'old work' });
    await engine.write({ id: session.id, text: 'remember this\r' });
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('echo: remember this'), 'the echo');

    const archived = await engine.archiveSession({ id: session.id });
    expect(archived).toMatchObject({ state: 'stopped', resumable: true });
    expect(archived.archivedAt).toEqual(expect.any(Number));
    expect(storedKey(rig, session.id)).toBe(session.id);
    expect((await engine.receipts({ id: session.id }))[0]?.output).toContain('echo: remember this');
    expect((await engine.events({ id: session.id })).events.map((e) => e.kind)).toEqual(expect.arrayContaining(['created', 'started', 'stopped', 'archived']));
    expect((await engine.listSessions()).sessions.map((s) => s.id)).toContain(session.id);

    const restored = await engine.restoreSession({ id: session.id });
    expect(restored).toMatchObject({ archivedAt: null, state: 'stopped', resumable: true });

    // Starting an archived session (a corral:// link) brings it back and resumes it.
    await engine.archiveSession({ id: session.id });
    const started = await engine.startSession({ id: session.id });
    expect(started).toMatchObject({ resumed: true, session: { archivedAt: null } });
    await waitFor(() => rig.launches().at(-1) === `faker resume ${session.id}`, 'the resume');
    expect((await engine.events({ id: session.id })).events.filter((e) => e.kind === 'restored')).toHaveLength(2);
  });

  it('refuses an unknown session, changing nothing', async () => {
    const engine = await rig.open();
    await expect(engine.archiveSession({ id: 'nope' })).rejects.toMatchObject({ code: 'unknown_session', field: 'id' });
    await expect(engine.restoreSession({ id: 'nope' })).rejects.toMatchObject({ code: 'unknown_session', field: 'id' });
  });
});
