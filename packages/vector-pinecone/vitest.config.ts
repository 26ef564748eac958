import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The live suite (skipped without PINECONE_API_KEY) waits for Pinecone's eventual consistency.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
