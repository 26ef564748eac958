import { requireString } from './input-validation.js';

/**
 * 32-bit FNV-1a of a string's UTF-16 code units, as an unsigned integer: a fast, stable,
 * non-cryptographic hash (shingles, hashed embeddings, seeds, ids for content without one). The
 * same string gives the same number on every platform and run.
 */
export function fnv1a(text: string): number {
  requireString(text, 'text');
  return fnv1aRange(text, 0, text.length);
}

/** Internal: FNV-1a's offset basis (the hash of nothing) and prime, for hashing while scanning. */
export const FNV_OFFSET_BASIS = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** Internal: {@link fnv1a} of `text.slice(start, end)`, without the slice or validation. */
export function fnv1aRange(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET_BASIS;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash >>> 0;
}
