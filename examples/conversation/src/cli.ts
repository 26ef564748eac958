import { runConversationExample } from './index.js';

await runConversationExample();
