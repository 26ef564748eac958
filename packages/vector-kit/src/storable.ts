import { invalidArgument, type DocumentChunk } from '@zerda/types';

/**
 * Text a backend cannot store, declared once by the adapter: `pattern` finds an unstorable
 * character, `expected` says in an error what the backend needs. The kit applies one policy with
 * it: `add` refuses a chunk holding such text (naming the field), and `get`/`delete`/
 * `deleteByDocIds` skip ids holding it (they cannot have been stored).
 */
export interface StorablePolicy {
  pattern: RegExp;
  /** The expectation of the error, given the unstorable character found (`U+0000`). */
  expected(found: string): string;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** True when `value` holds a lone (unpaired) UTF-16 surrogate, which no UTF-8 encoding can represent. */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** Backends that store UTF-8 text (Chroma, LanceDB, Pinecone …): lone surrogates cannot be stored. */
export function utf8Storable(backend: string): StorablePolicy {
  return { pattern: LONE_SURROGATE, expected: () => `well-formed Unicode text (${backend} stores UTF-8; a lone surrogate cannot be stored)` };
}

/** PostgreSQL text: neither U+0000 nor lone surrogates. */
export const POSTGRES_STORABLE: StorablePolicy = {
  pattern: /\u0000|\p{Cs}/u,
  expected: (found) => `text PostgreSQL can store (no U+0000 and no lone surrogates; found ${found})`,
};

/** Throws a ZerdaError naming `field` when `value` holds text the policy refuses. */
export function checkStorable(value: string, field: string, policy: StorablePolicy): void {
  const match = policy.pattern.exec(value);
  if (!match) return;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  throw invalidArgument(field, policy.expected(`U+${code}`), value);
}

/** {@link checkStorable} over every string and object key inside a JSON value. */
export function checkStorableJson(value: unknown, field: string, policy: StorablePolicy): void {
  if (typeof value === 'string') checkStorable(value, field, policy);
  else if (Array.isArray(value)) value.forEach((item, i) => checkStorableJson(item, `${field}[${i}]`, policy));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      checkStorable(key, `${field} key`, policy);
      checkStorableJson(item, `${field}.${key}`, policy);
    }
  }
}

/** Checks every text field of a chunk (`id`, `docId`, `text`, `source`, `title`, `metadata`), naming `chunks[index].field`. */
export function checkStorableChunk(chunk: DocumentChunk, index: number, policy: StorablePolicy): void {
  for (const field of ['id', 'docId', 'text', 'source'] as const) checkStorable(chunk[field], `chunks[${index}].${field}`, policy);
  if (chunk.title !== undefined) checkStorable(chunk.title, `chunks[${index}].title`, policy);
  checkStorableJson(chunk.metadata, `chunks[${index}].metadata`, policy);
}

/** The distinct values of `values` in first-seen order, without those the policy says cannot be stored. */
export function storableDistinct(values: readonly string[], policy: StorablePolicy | undefined): string[] {
  const distinct = [...new Set(values)];
  return policy ? distinct.filter((value) => !policy.pattern.test(value)) : distinct;
}
