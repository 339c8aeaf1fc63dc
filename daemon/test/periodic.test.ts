// A periodic job of the engine: a failure is told once, and stopping it waits for a run under
// way, whose failure (what it looked at is closing) is then not news.

import { describe, expect, it } from 'vitest';
import { every } from '../engine/periodic';
import { waitFor } from './support/wait';

describe('every', () => {
  it('tells a failure once, and that it works again', async () => {
    const lines: string[] = [];
    let fail = true;
    let runs = 0;
    const job = every(
      'the test job',
      5,
      async () => {
        runs++;
        if (fail) throw new Error('tmux went away');
      },
      (line) => lines.push(line),
    );
    await waitFor(() => runs >= 3, 'three failing runs');
    fail = false;
    await waitFor(() => lines.length >= 2, 'the job to work again');
    await job.stop();
    expect(lines).toEqual(['corral: the test job failed (it goes on): tmux went away', 'corral: the test job works again']);
  });

  it('stop waits for the run under way, and its failure is not told', async () => {
    const lines: string[] = [];
    let release: () => void = () => {};
    let started = false;
    // Like the engine's watchers: a run while one is under way returns at once.
    let underWay: Promise<void> | null = null;
    const job = every(
      'the slow job',
      5,
      () =>
        underWay
          ? Promise.resolve()
          : (underWay = new Promise<void>((_, reject) => {
              started = true;
              release = () => reject(new Error('The database connection is not open'));
            })),
      (line) => lines.push(line),
    );
    await waitFor(() => started, 'a run to start');
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(lines).toEqual([]);
  });
});
