import { runQuickstart } from './index.js';

await runQuickstart();
