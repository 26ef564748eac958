import { VECTOR_METRICS, checkInteger, invalidArgument, isVectorMetric, type EmbedFunction, type Embedder, type VectorMetric } from '@zerda/types';

/**
 * Checks a store's options argument: an object (not an array) whose keys are all in `keys`, so
 * that a typo (`metirc`) fails with a ZerdaError naming `options.metirc` instead of passing
 * silently. `undefined` stands for `{}`. Returns the options, typed.
 */
export function checkStoreOptions<O extends object>(options: O | undefined, keys: readonly string[], expected = 'an options object'): O {
  if (options === undefined) return {} as O;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', expected, options);
  checkKnownKeys(options, keys, 'options');
  return options;
}

/** Fails with a ZerdaError naming `field.key` for the first key of `value` that is not in `keys`. */
export function checkKnownKeys(value: object, keys: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw invalidArgument(`${field}.${key}`, `a known option (one of ${keys.join(', ')})`, `unknown key "${key}"`);
  }
}

/**
 * A metric option: `undefined` gives `fallback` (default `cosine`); anything but one of
 * {@link VECTOR_METRICS} fails naming `field`. `note` is appended to the expectation (a backend's
 * own names for the metrics, say).
 */
export function metricOption(value: unknown, field = 'options.metric', note = '', fallback: VectorMetric = 'cosine'): VectorMetric {
  if (value === undefined) return fallback;
  if (!isVectorMetric(value)) throw invalidArgument(field, `one of ${VECTOR_METRICS.map((metric) => `"${metric}"`).join(', ')}${note ? ` ${note}` : ''}`, value);
  return value;
}

/** Largest vector dimension a store accepts unless it says otherwise. */
export const MAX_DIMENSIONS = 65_536;

/**
 * A dimension option: `undefined` stays undefined (the first vector decides); otherwise an integer
 * from 1 to `maximum` (`Infinity`: any positive integer, for a store with no backend limit).
 */
export function dimensionsOption(value: unknown, field = 'options.dimensions', maximum = MAX_DIMENSIONS): number | undefined {
  if (value === undefined) return undefined;
  if (maximum !== Infinity) return checkInteger(value, field, 1, maximum);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidArgument(field, 'a positive integer', value);
  return value;
}

/** The first over-fetch factor of a store that checks part of a filter after the query (default 4, at most 1,000). */
export function overFetchOption(value: unknown, field = 'options.overFetch', fallback = 4): number {
  return value === undefined ? fallback : checkInteger(value, field, 1, 1000);
}

/** A file or directory path option: `undefined` stays undefined; otherwise a non-empty string. */
export function pathOption(value: unknown, field: string, expected = 'a non-empty file path'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw invalidArgument(field, expected, value);
  return value;
}

/** An embedder option: an {@link Embedder} (an object with `embed`) or a plain embed function. */
export function embedderOption(value: unknown, field = 'options.embedder'): Embedder | EmbedFunction | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return value as EmbedFunction;
  if (value !== null && typeof value === 'object' && typeof (value as Embedder).embed === 'function') return value as Embedder;
  throw invalidArgument(field, 'an Embedder (an object with embed(texts)) or a function (texts) => embeddings', value);
}
