// The pty backend's capture of an agent's last lines reads its own terminal, fed as the output
// came, instead of rendering megabytes of output each time; what it returns is what a render of
// all the output shows, whatever the lines' lengths and however much came at once. A viewer that
// fell behind is given that terminal's screen, not the output again.

import headless from '@xterm/headless';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asksTerminal, KEEPER_HISTORY, PtyBackend } from '../backends/ptyBackend';
import { waitFor } from './support/wait';
import { outputText } from './support/outputText';

const { Terminal } = headless;

describe('the output scanned for questions to the terminal', () => {
  // What an agent's own terminal (xterm.js, as the pty backend keeps) answers must be noticed, or
  // the agent waits on an answer nobody gives; what it does not answer need not be.
  const queries = [
    '\x1b[c', '\x1b[0c', '\x1b[>c', '\x1b[>0c', '\x1b[=c', '\x1b[5n', '\x1b[6n', '\x1b[?6n', '\x1b[?u',
    '\x1b[?2004$p', '\x1b[4$p', '\x1b[?1049$p', '\x1b[14t', '\x1b[18t', '\x1b[>q', '\x1b[>0q',
    '\x1b]10;?\x07', '\x1b]11;?\x1b\\', '\x1b]4;1;?\x07', '\x1bP+q544e\x1b\\', '\x1bP$qm\x1b\\',
  ];
  const others = [
    '\x1b[31m', '\x1b[0m', '\x1b[38;5;196m', '\x1b[1;1H', '\x1b[2J', '\x1b[?25h', '\x1b[?2004h', '\x1b[1;24r',
    '\x1b]0;title\x07', '\x1b]8;;https://example.com\x07', '\x1b=', '\x1b>', 'plain text; no escape at all',
  ];
  const answers = async (sequence: string): Promise<boolean> => {
    const terminal = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    let replied = false;
    terminal.onData(() => (replied = true));
    await new Promise<void>((resolve) => terminal.write(sequence, resolve));
    terminal.dispose();
    return replied;
  };

  it('notices every query the terminal answers, in the middle of other output', async () => {
    const answered: string[] = [];
    for (const query of queries) {
      if (await answers(query)) answered.push(query);
      expect(asksTerminal(`line \x1b[32mgreen\x1b[0m ${query} more`), JSON.stringify(query)).toBe(true);
    }
    // The list is worth its name: most of it is answered by the terminal itself.
    expect(answered.length).toBeGreaterThan(10);
  });

  it('takes no other sequence for a query', async () => {
    for (const sequence of others) {
      expect(await answers(sequence), JSON.stringify(sequence)).toBe(false);
      expect(asksTerminal(`line ${sequence} more`), JSON.stringify(sequence)).toBe(false);
    }
  });
});

let backend: PtyBackend | null = null;
afterEach(async () => {
  await backend?.close();
  backend = null;
});

/** An agent that prints what `script` (perl) prints, then "done", and stays. */
async function printing(script: string, cols = 80, rows = 24): Promise<PtyBackend> {
  backend = new PtyBackend();
  await backend.open(() => {});
  const program = `$| = 1; ${script}; print "done\\n"; sleep 600;`;
  await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>, cols, rows });
  await waitFor(async () => (await backend!.visible('agent')).includes('done'), 'the agent to finish printing');
  return backend;
}

/** The last `lines` lines as a render of everything kept shows them. */
const rendered = async (b: PtyBackend, lines: number) => (await b.capture('agent', KEEPER_HISTORY + 200)).split('\n').slice(-lines).join('\n');

describe("the pty backend's capture", () => {
  it('reads the last lines of many short ones from the agent’s terminal as a render shows them', async () => {
    const b = await printing('print "line $_ \\e[1mbold\\e[0m\\n" for 1..3000');
    const last = await b.capture('agent', 500);
    expect(last.split('\n')).toHaveLength(500);
    expect(last.split('\n').at(-2)).toBe('line 3000 bold');
    expect(last).toBe(await rendered(b, 500));
  });

  it('joins lines wrapped across the top of what the terminal keeps, or renders what it no longer holds', async () => {
    const b = await printing('print "wrapped $_ ", "y" x 250, "\\n" for 1..800');
    for (const lines of [100, 500]) expect(await b.capture('agent', lines)).toBe(await rendered(b, lines));
  });

  it('after more came at once than the terminal is given, is still what a render of it all shows', async () => {
    const b = await printing('print "long $_ ", "z" x 2000, "\\n" for 1..400');
    for (const lines of [50, 500]) expect(await b.capture('agent', lines)).toBe(await rendered(b, lines));
  });
});

describe("the pty backend's own terminal", () => {
  /**
   * What an agent that runs `script` (perl, in a raw terminal, gathering what it reads in `$r`)
   * read, written to a file: nothing looks at its screen meanwhile.
   */
  async function answered(script: string, within: number): Promise<string> {
    backend = new PtyBackend();
    await backend.open(() => {});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-answer-'));
    const answer = path.join(dir, 'answer');
    try {
      const program = `$| = 1; system("stty raw -echo"); my $r = ""; ${script} open(my $f, ">", "${answer}.part"); print $f $r; close $f; rename("${answer}.part", "${answer}"); sleep 600;`;
      await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>, cols: 80, rows: 24 });
      await waitFor(() => fs.existsSync(answer), 'the answer', within);
      return fs.readFileSync(answer, 'utf8');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('answers a query split across two reads, with nobody looking at its screen', async () => {
    // The cursor position query in two writes, far enough apart to be read apart.
    const answer = await answered('print "\\e["; select(undef, undef, undef, 0.3); print "6n"; while (sysread(STDIN, my $c, 1)) { $r .= $c; last if $c eq "R" }', 10_000);
    // eslint-disable-next-line no-control-regex -- the answer is an escape sequence
    expect(answer).toMatch(/^\x1b\[\d+;\d+R$/);
  });

  it('keeps the modes an agent set before a flood nobody looked at, and answers its queries about them', async () => {
    // The alternate screen and bracketed paste, once; then more than the terminal is given at
    // once; then the agent asks whether both are still set (DECRQM).
    const ask = 'for my $m (1049, 2004) { print "\\e[?$m\\$p"; while (sysread(STDIN, my $c, 1)) { $r .= $c; last if $c eq "y" } }';
    const answer = await answered(`print "\\e[?1049h\\e[?2004h"; print "flood $_ ", "x" x 90, "\\r\\n" for 1..4000; ${ask}`, 20_000);
    // 1: set (2 is what a terminal that lost them would say).
    expect(answer).toBe('\x1b[?1049;1$y\x1b[?2004;1$y');
  });
});

describe("the pty backend's replay to a viewer", () => {
  /** What a viewer that asks for `history` lines is given on attach. */
  const replayed = async (b: PtyBackend, history?: number) => {
    let text = '';
    const textOf = outputText();
    const attachment = await b.attach('agent', { cols: 80, rows: 24, ...(history === undefined ? {} : { history }), onData: (data) => (text += textOf(data)) });
    attachment.close();
    return text;
  };

  it('gives the last lines asked for and the screen, or everything it keeps when not asked', async () => {
    const b = await printing('print "line $_\\n" for 1..3000', 80, 24);
    const some = await replayed(b, 100);
    // 100 lines of history and a screenful (24 rows), "done" the last of them: from line 2878.
    expect(some.split('\n')[0]).toBe('line 2878\r');
    expect(some).toContain('line 3000\r\ndone');
    expect(some).not.toContain('line 2877\r');
    const all = await replayed(b);
    expect(all).toContain('line 1\r\n');
    expect(all.endsWith(some)).toBe(true);
    expect(await replayed(b, 100_000)).toBe(all);
  });

  it('gives a viewer that fell behind the screen as it is, with what was drawn on it before the recent output', async () => {
    backend = new PtyBackend();
    await backend.open(() => {});
    // A status line on the top row, kept there by a scroll region, then bursts of lines below it
    // (each less than the screen is given at once), far more in all than the recent output holds.
    const program = `$| = 1; print "\\e[2J\\e[HSTATUS LINE\\e[2;24r\\e[24;1H"; for my $b (1..25) { <STDIN>; print "line $_ ", "x" x 40, "\\n" for 1..2000; print "burst $b\\n" } sleep 600;`;
    await backend.spawn({ id: 'agent', file: 'perl', args: ['-e', program], cwd: process.cwd(), env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>, cols: 80, rows: 24 });
    const frames: string[] = [];
    const text = outputText();
    const attachment = await backend.attach('agent', { cols: 80, rows: 24, history: 0, onData: (data) => frames.push(text(data)) });
    try {
      // It stops reading before the agent prints: the agent goes on without it once it has held it back.
      attachment.pause();
      for (let burst = 1; burst <= 25; burst++) {
        await backend.write('agent', 'go\r');
        await waitFor(async () => (await backend!.visible('agent')).includes(`burst ${burst}`), `burst ${burst}`, 20_000);
      }
      const before = frames.length;
      attachment.resume();
      await waitFor(() => frames.slice(before).some((frame) => frame.startsWith('\x1bc')), 'the catch-up');
      const screen = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
      await new Promise<void>((resolve) => screen.write(frames.slice(before).join(''), resolve));
      const rows = Array.from({ length: 24 }, (_, i) => screen.buffer.active.getLine(screen.buffer.active.baseY + i)?.translateToString(true) ?? '');
      screen.dispose();
      expect(rows[0]).toBe('STATUS LINE');
      expect(rows[1]).toMatch(/^line 1980 x+$/);
      expect(rows[22]).toBe('burst 25');
    } finally {
      attachment.close();
    }
  });
});
