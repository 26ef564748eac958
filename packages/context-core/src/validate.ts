import { defaultAnalyzer, type Analyzer } from '@zerda/text';
import { ZerdaError, invalidArgument, type ScoredChunk } from '@zerda/types';

/**
 * Checks the parts of a scored-chunk list every strategy of this package reads (ids, document ids,
 * text, a finite score), without walking embeddings or metadata. Errors name the exact element,
 * e.g. `chunks[3].score must be a finite number, got number NaN`.
 */
export function assertScoredChunks(value: unknown, field = 'chunks'): asserts value is ScoredChunk[] {
  if (!Array.isArray(value)) throw invalidArgument(field, 'an array of scored chunks', value);
  for (let i = 0; i < value.length; i++) {
    const item = value[i] as Partial<ScoredChunk> | null | undefined;
    const at = `${field}[${i}]`;
    if (item === null || typeof item !== 'object') throw invalidArgument(at, 'a scored chunk { chunk, score, scores }', item);
    const chunk = item.chunk;
    if (chunk === null || typeof chunk !== 'object') throw invalidArgument(`${at}.chunk`, 'a DocumentChunk object', chunk);
    if (typeof chunk.id !== 'string') throw invalidArgument(`${at}.chunk.id`, 'a string', chunk.id);
    if (typeof chunk.docId !== 'string') throw invalidArgument(`${at}.chunk.docId`, 'a string', chunk.docId);
    if (typeof chunk.text !== 'string') throw invalidArgument(`${at}.chunk.text`, 'a string', chunk.text);
    if (typeof item.score !== 'number' || !Number.isFinite(item.score)) throw invalidArgument(`${at}.score`, 'a finite number', item.score);
    if (item.scores !== undefined && (item.scores === null || typeof item.scores !== 'object')) {
      throw invalidArgument(`${at}.scores`, 'an object of named scores', item.scores);
    }
  }
}

/** Throws unless `value` is a string; `field` is the name the caller knows the parameter by. */
export function assertString(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string') throw invalidArgument(field, 'a string', value);
}

/** Throws unless `value` is a plain object (or undefined, when `optional`). */
export function assertOptionsObject(value: unknown, field: string): asserts value is Record<string, unknown> | undefined {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(field, 'an options object', value);
}

/** Throws unless `value` is a finite number `>= min` (and an integer when `integer`). */
export function assertNumber(value: unknown, field: string, { min = -Infinity, integer = false }: { min?: number; integer?: boolean } = {}): asserts value is number {
  const ok = typeof value === 'number' && Number.isFinite(value) && value >= min && (!integer || Number.isInteger(value));
  if (!ok) {
    const kind = integer ? 'an integer' : 'a finite number';
    throw invalidArgument(field, min === -Infinity ? kind : `${kind} >= ${min}`, value);
  }
}

/** Rejects option keys a strategy does not know, so that typos fail loudly. */
export function assertKnownKeys(value: Record<string, unknown> | undefined, known: readonly string[], field: string): void {
  if (!value) return;
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
        field: `${field}.${key}`,
        expected: `a known option (one of ${known.join(', ')})`,
        received: `unknown key "${key}"`,
      });
    }
  }
}

/**
 * Validates a strategy's options object (known keys only) and returns its text analyzer: the one
 * given as `options.analyzer`, or @zerda/text's `defaultAnalyzer`. Strategies that compare query
 * keywords with chunk text must analyse both the same way, hence one shared resolution.
 */
export function resolveTextAnalyzer(options: { analyzer?: unknown } | undefined, known: readonly string[]): Analyzer {
  assertOptionsObject(options, 'options');
  assertKnownKeys(options as Record<string, unknown> | undefined, known, 'options');
  const analyzer = options?.analyzer;
  if (analyzer === undefined) return defaultAnalyzer;
  if (analyzer === null || typeof analyzer !== 'object' || typeof (analyzer as Analyzer).analyze !== 'function') {
    throw invalidArgument('options.analyzer', 'an Analyzer from @zerda/text', analyzer);
  }
  return analyzer as Analyzer;
}
