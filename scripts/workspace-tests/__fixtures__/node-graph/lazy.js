import { createHash } from 'crypto';
export const digest = (text) => createHash('sha256').update(text).digest('hex');
