import { defineConfig } from 'vitest/config';

// Browser launches and CLI processes take seconds on a loaded two-core machine.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000 },
});
