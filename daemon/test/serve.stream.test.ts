// WebSocket streams of a real `corral serve`: screen first, input and resize, events, flow
// control that pauses a flooding source for a viewer that stops acknowledging, and Origin.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitFor } from './support/wait';
import { collect, serveRig, type Served } from './support/serveRig';
import { HIGH_WATER } from '../streams/outputPump';
import headless from '@xterm/headless';

const { Terminal } = headless;

let s: Served;

beforeAll(async () => {
  s = await serveRig();
  // Floods once told to, so a viewer can connect to an empty screen first.
  s.rig.fake('flood', '#!/bin/bash\nread -r go\nexec yes "the quick brown fox jumps over the lazy dog, again and again and again"\n');
  fs.appendFileSync(`${s.rig.home}/clis.toml`, '\n[cli.flood]\ncommand = "flood"\n\n[cli.sizer]\ncommand = "sizer"\n\n[cli.counter]\ncommand = "counter"\n\n[cli.wide]\ncommand = "wide"\n');
  s.rig.fake('sizer', '#!/bin/bash\nwhile IFS= read -r line; do echo "size: $(stty size)"; done\n');
  s.rig.fake('counter', '#!/bin/bash\nfor i in $(seq 1 500); do echo "numbered $i"; done\nexec cat\n');
  // Lines of characters of two, three and four bytes, each line's unlike the one before (tmux
  // draws only what changed), once told to.
  s.rig.fake('wide', `#!/bin/bash\nread -r go\nexec perl -CS -e 'my @c = split //, "\\x{e9}\\x{df}\\x{2192}\\x{65e5}\\x{672c}\\x{1f980}\\x{2713}\\x{8a9e}"; print join("", map { $c[$_ * 3 % 8] } $_ .. $_ + 30), " $_\\n" for 1 .. 3000; print "wide done\\n"; sleep 600'\n`);
  // The catalogue is read when the daemon starts.
  await s.stop();
  s = await serveRig([], s.rig);
});
afterAll(async () => {
  await s.rig.cleanup();
});

const create = async (cli: string, name: string) => (await s.api('POST', '/api/sessions', { body: { cli, cwd: s.rig.home, name } })).body.id as string;

/** Where the first byte that does not begin or continue a whole UTF-8 character is (the end, if none). */
function firstBroken(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return bytes.length;
}

/** What the viewer's tmux client drew: all after its first clearing of the screen. */
const drawn = (text: string) => (text.includes('\u001b[2J') ? text.slice(text.indexOf('\u001b[2J')) : '');

/** Written to a terminal of the viewer's size, each of the counter's lines is there once, in order, up to its last. */
async function expectEveryLineOnce(text: string, cols: number, rows: number): Promise<void> {
  const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(text, resolve));
  const buffer = term.buffer.active;
  const numbers: number[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const found = /^numbered (\d+)$/.exec(buffer.getLine(i)?.translateToString(true) ?? '');
    if (found) numbers.push(Number(found[1]));
  }
  term.dispose();
  expect(numbers.at(-1)).toBe(500);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 501 - numbers.length + i));
  expect(numbers.length).toBeGreaterThan(60);
}

describe('a session stream', () => {
  it('gives a connecting viewer the screen first, then live output, and takes input', async () => {
    const id = await create('faker', 'streamed');
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('FRESH START'), 'the fresh start');
    const ws = s.ws(`/api/sessions/${id}/stream?cols=100&rows=30`);
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.text().includes('FRESH START'), 'the screen on connect');
    expect(got.messages[0]).toMatchObject({ type: 'hello', protocol: 2, session: { id, state: 'running' } });
    ws.send(JSON.stringify({ type: 'input', data: 'typed live\r' }));
    await waitFor(() => got.text().includes('echo: typed live'), 'the echo');
    ws.close();
    await got.closed;

    // A viewer that comes back gets the screen again, history included.
    const again = collect(s.ws(`/api/sessions/${id}/stream`));
    await again.opened;
    await waitFor(() => again.text().includes('echo: typed live') && again.text().includes('FRESH START'), 'the screen on reconnect');
  });

  it('gives a viewer that asks for some history its last lines and the screen, and one that asks for none all of it', async () => {
    const id = await create('counter', 'counted');
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('numbered 500'), 'the last line');
    const replay = async (query: string) => {
      const ws = s.ws(`/api/sessions/${id}/stream?cols=100&rows=30${query}`);
      const got = collect(ws);
      await got.opened;
      await waitFor(() => got.text().includes('numbered 500'), 'the screen');
      ws.close();
      await got.closed;
      return got.text();
    };
    const some = await replay('&history=50');
    // The screen holds the last 29 lines or so; 50 more come before it.
    expect(some).toMatch(/numbered 4[3-4]\d/);
    expect(some).not.toContain('numbered 400\r');
    const all = await replay('');
    expect(all).toContain('numbered 1\r\n');
    expect(all).toContain('numbered 400\r');
    // The history comes before the screen the viewer's client draws (the two are asked for at once).
    expect(all.indexOf('numbered 400\r')).toBeLessThan(all.indexOf('numbered 500'));
    expect(some.indexOf('numbered 450\r')).toBeLessThan(some.indexOf('numbered 500'));
  });

  it('sends every frame as whole characters, however the reads of its output split them', async () => {
    const id = await create('wide', 'wide');
    const ws = s.ws(`/api/sessions/${id}/stream?cols=100&rows=30`);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const broken: string[] = [];
    let frames = 0;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      frames++;
      try {
        strict.decode(data as Buffer);
      } catch {
        // Which frame, and the bytes around the first that is not part of a whole character.
        const bytes = data as Buffer;
        const at = firstBroken(bytes);
        broken.push(`frame ${frames} of ${bytes.length} bytes, at ${at}: ${bytes.subarray(Math.max(0, at - 24), at + 24).toString('hex')}`);
      }
    });
    const got = collect(ws);
    await got.opened;
    ws.send(JSON.stringify({ type: 'input', data: 'go\r' }));
    await waitFor(() => got.text().includes('wide done'), 'the last line');
    expect(got.text()).toMatch(/[é→日🦀✓]/u);
    expect(frames).toBeGreaterThan(1);
    expect(broken).toEqual([]);
    ws.close();
    await got.closed;
  });

  it("gives a tmux viewer the screen with its history, before the viewer's tmux client draws it, and every line once", async () => {
    const id = await create('counter', 'screened');
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('numbered 500'), 'the last line');
    // A viewer the person used gave the agent its size (until then the window keeps its own).
    const first = s.ws(`/api/sessions/${id}/stream?cols=100&rows=30`);
    await collect(first).opened;
    first.send(JSON.stringify({ type: 'resize', cols: 100, rows: 30 }));
    const paneSize = () => execFileSync('tmux', ['-L', s.env.CORRAL_TMUX_SOCKET!, 'display-message', '-p', '-t', `=corral-${id}:`, '#{pane_width}x#{pane_height}']).toString().trim();
    await waitFor(() => paneSize() === '100x30', 'the agent at the viewer size');
    first.close();
    const ws = s.ws(`/api/sessions/${id}/stream?cols=100&rows=30&history=50`);
    const got = collect(ws);
    await got.opened;
    // The client clears the screen first, then draws it row by row, maybe in more than one read.
    await waitFor(() => drawn(got.text()).includes('numbered 500'), "the client's first drawing, to its last row");
    ws.close();
    await got.closed;
    const text = got.text();
    expect(text.slice(0, text.indexOf('\u001b[2J'))).toContain('numbered 500');
    await expectEveryLineOnce(text, 100, 30);
  });

  it("gives a viewer in use from its start the agent at its size, and the screen with its history before its tmux client draws it, on the session's first showing", async () => {
    const id = await create('counter', 'unshown');
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('numbered 500'), 'the last line');
    const paneSize = () => execFileSync('tmux', ['-L', s.env.CORRAL_TMUX_SOCKET!, 'display-message', '-p', '-t', `=corral-${id}:`, '#{pane_width}x#{pane_height}']).toString().trim();
    const made = paneSize();
    // A read-only viewer is never in use: the window keeps its size.
    const readOnly = s.cli(['token', 'create', 'first-watcher', '--read-only']).stdout.trim();
    const watcher = s.ws(`/api/sessions/${id}/stream?cols=90&rows=20&inUse=1`, { token: readOnly });
    const watched = collect(watcher);
    await watched.opened;
    await waitFor(() => watched.text().includes('numbered 500'), "the watcher's screen");
    watcher.close();
    expect(paneSize()).toBe(made);
    expect(made).not.toBe('110x33');

    const ws = s.ws(`/api/sessions/${id}/stream?cols=110&rows=33&history=50&inUse=1`);
    const got = collect(ws);
    await got.opened;
    // The client clears the screen first, then draws it row by row, maybe in more than one read.
    await waitFor(() => drawn(got.text()).includes('numbered 500'), "the client's first drawing, to its last row");
    ws.close();
    await got.closed;
    expect(paneSize()).toBe('110x33');
    const text = got.text();
    expect(text.slice(0, text.indexOf('\u001b[2J'))).toContain('numbered 500');
    await expectEveryLineOnce(text, 110, 33);
  });

  it("a resize reaches the agent's terminal", async () => {
    const id = await create('sizer', 'sized');
    const ws = s.ws(`/api/sessions/${id}/stream?cols=90&rows=20`);
    const got = collect(ws);
    await got.opened;
    // No wait between them: input after a resize reaches the agent at its new size.
    ws.send(JSON.stringify({ type: 'resize', cols: 132, rows: 43 }));
    ws.send(JSON.stringify({ type: 'input', data: '\r' }));
    await waitFor(() => got.text().includes('size: 43 132'), 'the new size');
    ws.close();
  });

  it('a read-only viewer sees output but its typing is refused', async () => {
    const readOnly = s.cli(['token', 'create', 'watcher', '--read-only']).stdout.trim();
    const id = await create('faker', 'watched');
    const ws = s.ws(`/api/sessions/${id}/stream`, { token: readOnly });
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.text().includes('FRESH START'), 'the screen');
    ws.send(JSON.stringify({ type: 'input', data: 'sneaky\r' }));
    await waitFor(() => got.messages.some((m) => m.type === 'error'), 'the refusal');
    expect(got.messages.find((m) => m.type === 'error').error).toEqual({ code: 'forbidden', message: 'token "watcher" is read-only: it cannot change anything, type, or read files' });
    // Typing that follows it (with a token that may type) arrives after anything it let through.
    await s.api('POST', `/api/sessions/${id}/input`, { body: { text: 'after\r' } });
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('echo: after'), 'the later typing');
    expect((await s.api('GET', `/api/sessions/${id}/screen`)).body.text).not.toContain('sneaky');
    ws.close();
  });

  it('a malformed frame gets an error, not a crash', async () => {
    const id = await create('faker', 'malformed');
    const ws = s.ws(`/api/sessions/${id}/stream`);
    const got = collect(ws);
    await got.opened;
    ws.send('not json');
    ws.send(JSON.stringify({ type: 'resize', cols: 0, rows: 10 }));
    await waitFor(() => got.messages.filter((m) => m.type === 'error').length === 2, 'two errors');
    expect(got.messages.filter((m) => m.type === 'error').map((m) => m.error.message)).toEqual([
      'a frame is not valid JSON',
      'resize: cols must be 2 to 1000 and rows 2 to 500',
    ]);
    ws.send(JSON.stringify({ type: 'input', data: 'still fine\r' }));
    await waitFor(() => got.text().includes('echo: still fine'), 'the stream to go on');
    ws.close();
  });

  it("a viewer whose tmux client goes while the session runs is told to connect again, not that the session ended", async () => {
    const id = await create('faker', 'cut');
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('FRESH START'), 'the fresh start');
    const got = collect(s.ws(`/api/sessions/${id}/stream`));
    await got.opened;
    await waitFor(() => got.text().includes('FRESH START'), 'the screen');
    // Its client goes, as one lost on a busy tmux server does (once it is there: the screen can come before it).
    const clients = () => execFileSync('tmux', ['-L', s.env.CORRAL_TMUX_SOCKET!, 'list-clients', '-t', `=corral-${id}`], { encoding: 'utf8' });
    await waitFor(() => clients().trim() !== '', 'the viewer’s tmux client to reach the server');
    execFileSync('tmux', ['-L', s.env.CORRAL_TMUX_SOCKET!, 'detach-client', '-s', `=corral-${id}`], { stdio: 'ignore' });
    expect((await got.closed).code).toBe(4409);
    expect(got.messages.at(-1)).toMatchObject({ type: 'error', error: { code: 'backend_failed' } });
    expect(got.messages.some((m) => m.type === 'closed')).toBe(false);
    // The session ran on, and a viewer that connects again sees it.
    expect((await s.api('GET', `/api/sessions/${id}`)).body.state).toBe('running');
    const ws = s.ws(`/api/sessions/${id}/stream`);
    const again = collect(ws);
    await again.opened;
    await waitFor(() => again.text().includes('FRESH START'), 'the screen again');
    ws.close();
  });

  it('ends when the session stops, and refuses a stopped session', async () => {
    const id = await create('faker', 'ending');
    const got = collect(s.ws(`/api/sessions/${id}/stream`));
    await got.opened;
    await s.api('POST', `/api/sessions/${id}/stop`);
    expect((await got.closed).code).toBe(1000);
    const late = collect(s.ws(`/api/sessions/${id}/stream`));
    expect((await late.closed).code).toBe(4409);
    expect(late.messages.at(-1)).toMatchObject({ type: 'error', error: { code: 'conflict', message: 'session "ending" is not running' } });
  });
});

describe('flow control', () => {
  it('a viewer that stops acknowledging pauses the source; acknowledging resumes it; memory stays bounded', async () => {
    const id = await create('flood', 'flood');
    const quiet = await create('faker', 'neighbour');
    const ws = s.ws(`/api/sessions/${id}/stream`);
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.messages.length > 0, 'hello');
    ws.send(JSON.stringify({ type: 'input', data: 'go\r' }));
    // Never acknowledge: the daemon must stop near the high-water mark (plus one batch).
    await waitFor(() => got.bytes() > HIGH_WATER, 'the first high-water mark of bytes');
    await sleep(500);
    const plateau = got.bytes();
    await sleep(1_000);
    expect(got.bytes()).toBe(plateau);
    expect(plateau).toBeLessThan(HIGH_WATER + 300_000);

    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) * 1024;
    const before = rss();
    await sleep(1_500);
    expect(rss() - before).toBeLessThan(20 * 1024 * 1024);

    // Another session's viewer is not slowed by the paused one.
    const other = s.ws(`/api/sessions/${quiet}/stream`);
    const near = collect(other);
    await near.opened;
    other.send(JSON.stringify({ type: 'input', data: 'next door\r' }));
    await waitFor(() => near.text().includes('echo: next door'), 'the neighbour to answer', 5_000);

    // Acknowledge everything: the source resumes.
    ws.send(JSON.stringify({ type: 'ack', bytes: plateau }));
    await waitFor(() => got.bytes() > plateau + 50_000, 'output to flow again');

    // Ctrl-C reaches the flooding agent promptly even now.
    ws.send(JSON.stringify({ type: 'ack', bytes: 10_000_000 }));
    ws.send(JSON.stringify({ type: 'input', data: '\u0003' }));
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}`)).body.state === 'exited', 'yes to end on Ctrl-C', 5_000);
    ws.close();
    other.close();
  });
});

describe('the events stream', () => {
  it('says hello with every session, then pushes each change', async () => {
    const ws = s.ws('/api/events');
    const got = collect(ws);
    await got.opened;
    await waitFor(() => got.messages[0]?.type === 'hello', 'hello');
    expect(Array.isArray(got.messages[0].sessions)).toBe(true);
    const id = await create('faker', 'evented');
    await s.api('POST', `/api/sessions/${id}/stop`);
    await waitFor(() => got.messages.some((m) => m.type === 'change' && m.session.id === id && m.event?.kind === 'stopped'), 'the stop');
    const kinds = got.messages.filter((m) => m.session?.id === id).map((m) => `${m.kind}:${m.event?.kind ?? '-'}`);
    expect(kinds[0]).toBe('added:created');
    expect(kinds).toContain('updated:started');
    ws.close();
  });
});

describe('WebSocket trust', () => {
  it("refuses an upgrade from a foreign Origin, and one without a token; takes the token as a protocol", async () => {
    const foreign = s.ws('/api/events', { origin: 'https://evil.example' });
    const status = await new Promise<number>((resolve) => foreign.on('unexpected-response', (_req, res) => resolve(res.statusCode!)));
    expect(status).toBe(403);
    const anonymous = s.ws('/api/events', { token: null });
    expect(await new Promise<number>((resolve) => anonymous.on('unexpected-response', (_req, res) => resolve(res.statusCode!)))).toBe(401);
    // As a browser would: no Authorization header, the token as a protocol, the server's own Origin.
    const browser = s.ws('/api/events', { token: null, origin: s.url, protocols: ['corral.v1', `bearer.${s.token}`] });
    const got = collect(browser);
    await got.opened;
    expect(browser.protocol).toBe('corral.v1');
    await waitFor(() => got.messages[0]?.type === 'hello', 'hello');
    browser.close();
  });
});
