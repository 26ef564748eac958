import { runLegacyMigrationExample } from './index.js';

await runLegacyMigrationExample();
