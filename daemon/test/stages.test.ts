// The log of a slow start: which stage held it, said while it is still under way (in case it
// never ends) and again when it ends. On a fake clock.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { timed } from '../util/stages';

afterEach(() => {
  vi.useRealTimers();
});

describe('a slow start in the log', () => {
  it('names the stage that holds it while under way, then every stage’s time when it ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const lines: string[] = [];
    let release = () => {};
    const work = timed(
      'a create',
      3_000,
      async (stages) => {
        stages.enter('checks');
        vi.advanceTimersByTime(5);
        stages.enter('tmux source-file');
        await new Promise<void>((resolve) => (release = resolve));
        stages.enter('record');
      },
      (line) => lines.push(line),
    );
    await vi.advanceTimersByTimeAsync(3_000);
    expect(lines).toEqual(['corral: a create is still under way after 3.0 s: checks 5 ms, tmux source-file 2995 ms']);
    await vi.advanceTimersByTimeAsync(2_000);
    release();
    await work;
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('corral: a create took 5.0 s: checks 5 ms, tmux source-file 5000 ms, record 0 ms');
  });

  it('says nothing of a start done in time, and says a slow one that failed failed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const lines: string[] = [];
    await timed('a quick create', 3_000, async (stages) => stages.enter('spawn'), (line) => lines.push(line));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lines).toEqual([]);

    const failing = timed(
      'a create',
      3_000,
      async (stages) => {
        stages.enter('spawn');
        vi.advanceTimersByTime(4_000);
        throw new Error('tmux did not answer');
      },
      (line) => lines.push(line),
    );
    await expect(failing).rejects.toThrow('tmux did not answer');
    expect(lines).toEqual(['corral: a create is still under way after 3.0 s: spawn 3000 ms', 'corral: a create failed after 4.0 s: spawn 4000 ms']);
  });
});
