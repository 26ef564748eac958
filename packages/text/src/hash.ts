import { requireString } from './input-validation.js';

/**
 * 32-bit FNV-1a of a string's UTF-16 code units, as an unsigned integer: a fast, stable,
 * non-cryptographic hash (shingles, hashed embeddings, seeds, ids for content without one). The
 * same string gives the same number on every platform and run.
 */
export function fnv1a(text: string): number {
  requireString(text, 'text');
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
