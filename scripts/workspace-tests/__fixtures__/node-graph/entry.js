// Fixture for runtime-neutral.test.ts: one built-in at load time, one only behind import().
import { helper } from './helper.js';
export const value = helper();
export const later = () => import('./lazy.js');
