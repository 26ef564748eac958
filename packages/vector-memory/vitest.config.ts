import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The tests run the source: `#store-file` (package.json `imports`) points at dist/ for users.
    alias: { '#store-file': fileURLToPath(new URL('./src/memory-file.ts', import.meta.url)) },
  },
});
