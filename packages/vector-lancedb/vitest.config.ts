import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // LanceDB writes real files and the machine is shared: generous timeouts, no wall-clock assertions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
