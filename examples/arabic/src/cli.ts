import { runArabicExample } from './index.js';

await runArabicExample();
