import { defineConfig } from 'vitest/config';

// The complexity suite collects garbage before each timing (so that one sample does not pay for
// another's garbage) and the soak samples the heap after a collection: both need --expose-gc.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--expose-gc'],
  },
});
