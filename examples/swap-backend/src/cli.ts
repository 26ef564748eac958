import { runSwapBackendExample } from './index.js';

await runSwapBackendExample();
