import { join } from 'node:path';
export const helper = () => join('a', 'b');
