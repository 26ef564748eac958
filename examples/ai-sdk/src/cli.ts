import { runAiSdkExample } from './index.js';

await runAiSdkExample();
