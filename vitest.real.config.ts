import { defineConfig } from 'vitest/config';

// `npm run test:real` (scripts/test-real.mjs): the real agent CLIs, one at a time.
export default defineConfig({
  test: {
    include: ['daemon/test/real/*.real.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
