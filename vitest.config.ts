import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/full/**', '**/node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    // The default output, then why any test was skipped (the default reporter only counts them).
    reporters: ['default', './test/helpers/skip-reasons-reporter.ts'],
    // Above test/helpers/until.ts's 30 s default, so that a wait that never ends fails with its own message
    // (what was awaited) rather than as a test timeout; roomy for CI's loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
