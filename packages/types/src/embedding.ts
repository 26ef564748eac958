import { createError, describeValue } from './errors.js';

/**
 * Checks an embedding before anything is written: numeric array or typed array, every value
 * finite, the expected dimension (when known). Returns it as a Float32Array.
 */
export function validateEmbedding(value: unknown, field: string, dimensions?: number): Float32Array {
  if (!(Array.isArray(value) || value instanceof Float32Array || value instanceof Float64Array)) {
    throw createError('ZERDA_INVALID_EMBEDDING', { field, expected: 'a Float32Array or an array of finite numbers', received: describeValue(value) });
  }
  const array = value as ArrayLike<unknown>;
  if (array.length === 0) {
    throw createError('ZERDA_INVALID_EMBEDDING', { field, expected: 'a non-empty vector', received: describeValue(value) });
  }
  for (let i = 0; i < array.length; i++) {
    const x = array[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw createError('ZERDA_INVALID_EMBEDDING', { field: `${field}[${i}]`, expected: 'a finite number', received: describeValue(x) });
    }
  }
  if (dimensions !== undefined && array.length !== dimensions) {
    throw createError('ZERDA_DIMENSION_MISMATCH', { field, received: String(array.length), expected: String(dimensions) });
  }
  return value instanceof Float32Array ? value : Float32Array.from(array as ArrayLike<number>);
}
