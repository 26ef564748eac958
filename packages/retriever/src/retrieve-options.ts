import {
  createError,
  invalidArgument,
  parseMetadataFilter,
  resolveConfigSection,
  ZerdaError,
  type MetadataFilter,
  type QueryAnalysis,
  type RetrievalConfig,
} from '@zerda/types';

/** The retrieval section of the engine configuration with every default filled in. */
export const RETRIEVAL_DEFAULTS: RetrievalConfig = resolveConfigSection('retrieval', {});

/** The keys `retrieve(query, options)` knows. */
const RETRIEVE_OPTION_KEYS = ['topK', 'filter', 'analysis', 'signal'] as const;

/** Retrieve options after validation, with the default `topK` applied. */
export interface ParsedRetrieveOptions {
  topK: number;
  filter: MetadataFilter | undefined;
  analysis: QueryAnalysis | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Validates the arguments every retriever's `retrieve` takes: the query must be a string, `topK` a
 * non-negative integer (default: the configured retrieval depth, 30), `filter` a valid filter,
 * `signal` an AbortSignal. Throws a ZerdaError naming the field; throws the signal's reason when it
 * was already aborted.
 */
export function parseRetrieveOptions(query: unknown, options: unknown, defaultTopK: number = RETRIEVAL_DEFAULTS.topK): ParsedRetrieveOptions {
  if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
  if (options === undefined) return { topK: defaultTopK, filter: undefined, analysis: undefined, signal: undefined };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
  const record = options as Record<string, unknown>;
  rejectUnknownOptions(record, RETRIEVE_OPTION_KEYS, 'options');
  const topK = record.topK ?? defaultTopK;
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0) throw invalidArgument('options.topK', 'a non-negative integer', record.topK);
  const filter = record.filter === undefined ? undefined : parseMetadataFilter(record.filter, 'options.filter');
  const analysis = record.analysis;
  if (analysis !== undefined && (analysis === null || typeof analysis !== 'object')) throw invalidArgument('options.analysis', 'a QueryAnalysis object', analysis);
  const signal = record.signal;
  if (signal !== undefined && !isAbortSignal(signal)) throw invalidArgument('options.signal', 'an AbortSignal', signal);
  throwIfAborted(signal);
  return { topK, filter, analysis: analysis as QueryAnalysis | undefined, signal };
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof value === 'object' && value !== null && typeof (value as AbortSignal).aborted === 'boolean' && typeof (value as AbortSignal).addEventListener === 'function';
}

/** Throws the signal's reason (an AbortError by default) when it is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Validates a retriever name: a non-empty string. */
export function parseName(value: unknown, fallback: string, field = 'options.name'): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) throw invalidArgument(field, 'a non-empty string', value);
  return value;
}

/** Throws a ZerdaError naming `field` unless `value` is a plain object (or undefined). */
export function optionsObject(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidArgument(field, 'an options object', value);
  return value as Record<string, unknown>;
}

/** Rejects keys not in `allowed`, so that a misspelt option fails instead of being ignored. */
export function rejectUnknownOptions(record: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw invalidArgument(`${field}.${key}`, `a known option (one of ${allowed.join(', ')})`, record[key]);
    }
  }
}

/** Validates a list of document ids for `remove`. */
export function parseDocIds(value: unknown, field = 'docIds'): string[] {
  if (!Array.isArray(value)) throw invalidArgument(field, 'an array of document ids (strings)', value);
  value.forEach((docId, index) => {
    if (typeof docId !== 'string') throw invalidArgument(`${field}[${index}]`, 'a string', docId);
  });
  return value as string[];
}

/**
 * Re-labels a ZerdaError thrown while validating a nested value so that it names the field the
 * caller knows (e.g. `options.analyzer.arabic.stemmer` instead of `options.arabic.stemmer`).
 */
export function renameErrorField(error: unknown, from: string, to: string): unknown {
  if (!ZerdaError.isInstance(error)) return error;
  const field = error.details.field;
  if (typeof field !== 'string' || !(field === from || field.startsWith(`${from}.`) || field.startsWith(`${from}[`))) return error;
  return createError(error.code, { ...error.details, field: to + field.slice(from.length) }, error);
}
