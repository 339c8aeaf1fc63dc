// The pty backend's capture of an agent's last lines reads its own terminal, fed as the output
// came, instead of rendering megabytes of output each time; what it returns is what a render of
// all the output shows, whatever the lines' lengths and however much came at once.

import { afterEach, describe, expect, it } from 'vitest';
import { KEEPER_HISTORY, PtyBackend } from '../backends/ptyBackend';
import { waitFor } from './support/wait';

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

describe("the pty backend's replay to a viewer", () => {
  /** What a viewer that asks for `history` lines is given on attach. */
  const replayed = async (b: PtyBackend, history?: number) => {
    let text = '';
    const attachment = await b.attach('agent', { cols: 80, rows: 24, ...(history === undefined ? {} : { history }), onData: (data) => (text += data) });
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
});
