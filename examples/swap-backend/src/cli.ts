import { runInDatabaseHybrid, runSwapBackendExample } from './index.js';

await runSwapBackendExample();
await runInDatabaseHybrid();
