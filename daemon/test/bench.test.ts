// The benchmark code, run once with tiny sizes so it cannot rot. No figure is asserted: speed
// is a benchmark's business, not a test's.

import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

it('npm run bench runs end to end (tiny sizes) and reports every figure', () => {
  const out = execFileSync(process.execPath, ['scripts/bench.mjs', '--tiny'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  for (const figure of ['1. output throughput, pty backend', '1. output throughput, tmux backend', '3. echo latency p50', '4. Ctrl-C under flood', '5. time to a live tab', '6. corral serve to /healthz', '7. memory per idle session', '8. 2 busy agents', '9. resume fallback']) {
    expect(out).toContain(figure);
  }
  expect(out).toContain('every byte arrived in order');
  expect(out).toContain('2. throughput to the screen');
}, 150_000);
