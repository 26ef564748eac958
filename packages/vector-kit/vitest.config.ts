import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The example adapter imports the kit by its package name, as a user's adapter would.
    alias: { '@zerda/vector-kit': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    testTimeout: 60_000,
  },
});
