import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test file starts a real Chroma server (about a second); the machine is shared.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
