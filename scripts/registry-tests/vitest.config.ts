import { defineConfig } from 'vitest/config';

// One long file: the registry, the release and the installs are shared by every test in it.
export default defineConfig({
  test: { testTimeout: 900_000, hookTimeout: 900_000, fileParallelism: false },
});
