import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/full/**', '**/node_modules/**'],
    pool: 'forks',
    // The files mostly wait on sockets, child processes and Postgres, not on the CPU: vitest's default (cores − 1)
    // ran one file at a time on CI's 2 cores with the load under 1. At least four at once; on a larger machine
    // the default. Postgres files never collide (a database each, test/helpers/postgres.ts).
    maxWorkers: Math.max(4, availableParallelism() - 1),
    globalSetup: ['test/helpers/global-setup.ts'],
    // The default output, then why any test was skipped (the default reporter only counts them).
    reporters: ['default', './test/helpers/skip-reasons-reporter.ts'],
    // Above test/helpers/until.ts's 30 s default, so that a wait that never ends fails with its own message
    // (what was awaited) rather than as a test timeout; roomy for CI's loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
