import { createError } from '@zerda/types';

/**
 * pgvector's text form of a vector, `[x1,x2,…]`. Nine significant digits always round-trip a
 * float32 exactly (pgvector stores float4), at about half the length of a double's shortest form.
 */
export function toVectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    const value = vector[i]!;
    out += Number.isInteger(value) ? String(value) : value.toPrecision(9);
  }
  return out + ']';
}

/** Parses pgvector's text output back into a Float32Array; fails with a ZerdaError on anything else. */
export function fromVectorLiteral(text: unknown, field = 'embedding'): Float32Array {
  if (typeof text !== 'string' || text.length < 2 || text[0] !== '[' || text[text.length - 1] !== ']') {
    throw createError('ZERDA_BACKEND_ERROR', { component: 'pgvector', operation: 'read', reason: `${field} is not a pgvector value` });
  }
  const body = text.slice(1, -1);
  if (body.length === 0) return new Float32Array(0);
  const parts = body.split(',');
  const vector = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) vector[i] = Number(parts[i]);
  return vector;
}
