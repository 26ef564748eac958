import { runMultiQueryExample } from './index.js';

await runMultiQueryExample();
