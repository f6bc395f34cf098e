import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/full/**', '**/node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    // The default output, then why any test was skipped (the default reporter only counts them).
    reporters: ['default', './test/helpers/skip-reasons-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
