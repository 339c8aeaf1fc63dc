// The pty backend passes an agent's output on as the bytes it read, never decoded on the way: a
// character that one read ends inside of reaches a viewer, a replay and the agent's own terminal
// whole. Its terminal is still marked as UTF-8, as node-pty marks it only when it decodes.

import { afterEach, describe, expect, it } from 'vitest';
import { PtyBackend, REPLAY_LIMIT } from '../backends/ptyBackend';
import { waitFor } from './support/wait';

let backend: PtyBackend | null = null;
afterEach(async () => {
  await backend?.close();
  backend = null;
});

const env = { ...process.env, TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } as Record<string, string>;

/** A viewer's bytes from the start of its attachment, each read as it came. */
async function viewer(b: PtyBackend, history?: number): Promise<{ chunks: Buffer[]; close(): void }> {
  const chunks: Buffer[] = [];
  const attachment = await b.attach('agent', { cols: 80, rows: 24, ...(history === undefined ? {} : { history }), onData: (data) => chunks.push(Buffer.from(data)) });
  return { chunks, close: () => attachment.close() };
}

/** Text that must be valid UTF-8: a character cut and not joined again would throw. */
const strictText = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

describe("the pty backend's output as bytes", () => {
  it('gives every character whole, where a read ended inside it: live, replayed, and on its terminal', async () => {
    backend = new PtyBackend();
    await backend.open(() => {});
    // 4,000 lines of two-, three- and four-byte characters: far more than one read of the terminal.
    const program = `binmode STDOUT, ':utf8'; $| = 1; <STDIN>; print "line $_ \\x{e9}\\x{20ac}\\x{1f600} ", "\\x{3b1}" x ($_ % 30), "\\n" for 1..4000; print "done\\n"; sleep 600;`;
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env, cols: 80, rows: 24 });
    const live = await viewer(backend);
    try {
      await backend.write('agent', 'go\r');
      await waitFor(() => Buffer.concat(live.chunks).includes('done\r\n'), 'the agent to finish printing', 20_000);
      const line = (n: number) => `line ${n} é€😀 ${'α'.repeat(n % 30)}\r\n`;
      const want = Array.from({ length: 4000 }, (_, i) => line(i + 1)).join('') + 'done\r\n';
      // The reads did cut characters: a chunk's last byte is a lead or continuation byte of one.
      expect(live.chunks.filter((chunk) => chunk.length > 0 && chunk[chunk.length - 1]! >= 0x80).length).toBeGreaterThan(0);
      expect(strictText(Buffer.concat(live.chunks))).toContain(want);

      const again = await viewer(backend, 100);
      again.close();
      const replay = strictText(Buffer.concat(again.chunks));
      // 100 lines of history and a screenful (24 rows), "done" the last of them.
      expect(replay.startsWith(line(4000 - 122))).toBe(true);
      expect(replay.endsWith(line(4000) + 'done\r\n')).toBe(true);

      const captured = await backend.capture('agent', 3);
      expect(captured.split('\n')).toEqual([line(3999), line(4000), 'done'].map((text) => text.replace(/ *\r\n$/, '')));
      expect(await backend.visible('agent')).toContain(line(4000).trimEnd());
    } finally {
      live.close();
    }
  });

  it('replays the recent output whole: every line from the first kept to the last, from a line start', async () => {
    backend = new PtyBackend();
    await backend.open(() => {});
    // About 3.6 MB: more than the recent output keeps (REPLAY_LIMIT), in reads of every size.
    const program = `binmode STDOUT, ':utf8'; $| = 1; <STDIN>; for my $n (1..40000) { print "line $n \\x{e9}", "\\x{3b1}" x ($n % 50), "\\n" } print "done\\n"; sleep 600;`;
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env, cols: 80, rows: 24 });
    await backend.write('agent', 'go\r');
    await waitFor(async () => (await backend!.visible('agent')).includes('done'), 'the agent to finish printing', 30_000);
    const all = await viewer(backend);
    all.close();
    const replay = Buffer.concat(all.chunks);
    expect(replay.length).toBeLessThanOrEqual(REPLAY_LIMIT);
    expect(replay.length).toBeGreaterThan(REPLAY_LIMIT - 200);
    const lines = strictText(replay).split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines.pop()).toBe('done');
    const first = Number(/^line (\d+) /.exec(lines[0]!)?.[1]);
    expect(first).toBeGreaterThan(1);
    expect(lines).toEqual(Array.from({ length: 40000 - first + 1 }, (_, i) => `line ${first + i} é${'α'.repeat((first + i) % 50)}`));
  });

  it('gives a viewer that caught up the start of a character the last read cut, before the rest of it', async () => {
    backend = new PtyBackend();
    await backend.open(() => {});
    // "x" and the first byte of "─" (e2 94 80); the rest of it, when asked.
    // The terminal does not echo what is typed: nothing comes between the two parts.
    const program = `$| = 1; system "stty -echo"; print "ready\\n"; <STDIN>; print "x\\xe2"; <STDIN>; print "\\x94\\x80 the end\\n"; sleep 600;`;
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env, cols: 80, rows: 24 });
    const chunks: Buffer[] = [];
    const attachment = await backend.attach('agent', { cols: 80, rows: 24, onData: (data) => chunks.push(Buffer.from(data)) });
    try {
      await waitFor(() => Buffer.concat(chunks).includes('ready'), 'the agent');
      // It stops reading; the agent goes on without it once it has held it back, and it falls behind.
      attachment.pause();
      await backend.write('agent', 'a\r');
      await waitFor(async () => (await backend!.visible('agent')).includes('x'), 'the first part', 20_000);
      const before = chunks.length;
      attachment.resume();
      await waitFor(() => chunks.slice(before).some((chunk) => chunk.includes('\x1bc')), 'the catch-up');
      await backend.write('agent', 'b\r');
      await waitFor(() => Buffer.concat(chunks.slice(before)).includes('the end'), 'the rest');
      expect(strictText(Buffer.concat(chunks.slice(before)))).toContain('x─ the end');
    } finally {
      attachment.close();
    }
  });

  it("marks its terminal's input as UTF-8: an erase in a line being typed takes the whole character", async () => {
    backend = new PtyBackend();
    await backend.open(() => {});
    // bash's `read` leaves the line's editing to the terminal (canonical mode).
    const script = `echo ready; read -r line; printf '[%s]' "$line" | od -An -tx1; sleep 600`;
    await backend.spawn({ id: 'agent', file: 'bash', args: ['--norc', '-c', script], cwd: process.cwd(), env, cols: 80, rows: 24 });
    await waitFor(async () => (await backend!.visible('agent')).includes('ready'), 'the agent');
    await backend.write('agent', 'é\x7fx\r');
    // Without IUTF8 the erase takes only the character's last byte, and `read` gets c3 78.
    await waitFor(async () => /5b( [0-9a-f]{2})+ 5d/.test(await backend!.visible('agent')), 'the line read');
    expect(await backend.visible('agent')).toMatch(/ 5b 78 5d\b/);
  });
});
