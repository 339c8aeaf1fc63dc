import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['daemon/**/*.test.ts', 'main/**/*.test.ts', 'preload/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
    // Integration tests drive real tmux servers and child processes: two cores, so keep it modest.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './scripts/summaryReporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
