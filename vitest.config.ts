import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'functions/test/**/*.test.ts'],
    // Builds once (tsc -b): lifecycle tests run the built server as a real process.
    globalSetup: ['test/global-setup.ts'],
    // Real processes, ports and brokers: keep parallelism modest on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    // The JSON report is what CI counts passes and failures from (VITEST_JSON: the Node 24 tier's own file).
    reporters: ['default', ['json', { outputFile: process.env.VITEST_JSON ?? 'test-results/vitest.json' }]],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
