import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'functions/test/**/*.test.ts'],
    // Real processes, ports and brokers: keep parallelism modest on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
