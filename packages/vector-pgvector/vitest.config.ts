import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // PGlite starts in seconds and the machine is shared: generous timeouts, no wall-clock assertions.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
