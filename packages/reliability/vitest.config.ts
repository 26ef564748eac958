import { defineConfig } from 'vitest/config';

// The complexity suite collects garbage before each timing (so that one sample does not pay for
// another's garbage) and the soak samples the heap after a collection: both need --expose-gc.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // One file at a time: the complexity suite compares timings at two sizes in one process, and the
    // fuzz and soak files running beside it on a 2-core machine would add their load to one side only.
    fileParallelism: false,
  },
});
