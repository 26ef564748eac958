import { runCustomStrategyExample } from './index.js';

await runCustomStrategyExample();
