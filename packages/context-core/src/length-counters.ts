import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { charCounter, nodeRequire, wordCounter } from '@zerda/text';
import { ZerdaError, createError, invalidArgument, type LengthCounter } from '@zerda/types';
import { assertNumber, assertOptionsObject, assertKnownKeys } from './validate.js';

export { charCounter, wordCounter };

/** The offline BPE encodings zerda can count tokens with. */
export type TokenEncoding = 'cl100k_base' | 'o200k_base';

/** Names {@link toLengthCounter} accepts besides a function. `tokens` means `cl100k_base`. */
export type LengthCounterName = 'chars' | 'words' | 'tokens' | TokenEncoding;

export interface TokenCounterOptions {
  /** Texts whose counts are remembered (least recently used are forgotten first). Default 1024; 0 disables memoization. */
  cacheSize?: number;
  /** Texts longer than this (UTF-16 units) are counted but not remembered, so the cache never pins huge strings. Default 20 000. */
  maxCachedLength?: number;
}

const ENCODINGS: readonly TokenEncoding[] = ['cl100k_base', 'o200k_base'];
const encoders = new Map<TokenEncoding, Tiktoken>();
const loading = new Map<TokenEncoding, Promise<void>>();
/** Counters this module made (or wrapped), which need no further wrapping. */
const ownCounters = new WeakSet<(text: string) => number>();

type RanksModule = TiktokenBPE | { default: TiktokenBPE };

/**
 * The rank tables are 1–2 MB of JavaScript each, so they are never loaded when this package is
 * imported. Each is a literal dynamic `import()`, which bundlers split into a chunk of its own that
 * an application downloads only when it counts tokens in that encoding.
 */
const RANK_MODULES: Record<TokenEncoding, () => Promise<RanksModule>> = {
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base') as Promise<RanksModule>,
  o200k_base: () => import('js-tiktoken/ranks/o200k_base') as Promise<RanksModule>,
};

function remember(encoding: TokenEncoding, loaded: RanksModule): Tiktoken {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    encoder = new Tiktoken('bpe_ranks' in loaded ? loaded : loaded.default);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

/**
 * Loads the rank table of `encoding` (once per process; later calls return at once). Token counters
 * are synchronous, so in a browser or a worker the table must be loaded before the first count:
 * `ContextEngine` does it before it composes, and code that counts on its own awaits this (or the
 * counter's `load()`) first. In Node.js, Bun and Deno it is optional: the table otherwise loads
 * synchronously on the first count.
 */
export function loadTokenEncoding(encoding: TokenEncoding = 'cl100k_base'): Promise<void> {
  if (!ENCODINGS.includes(encoding)) return Promise.reject(invalidArgument('encoding', `one of ${ENCODINGS.join(', ')}`, encoding));
  if (encoders.has(encoding)) return Promise.resolve();
  let pending = loading.get(encoding);
  if (!pending) {
    pending = RANK_MODULES[encoding]().then(
      (loaded) => {
        remember(encoding, loaded);
      },
      (error: unknown) => {
        loading.delete(encoding);
        throw createError('ZERDA_NOT_READY', { component: `the ${encoding} token counter`, reason: `its rank table (js-tiktoken/ranks/${encoding}) failed to load: ${error instanceof Error ? error.message : String(error)}` }, error);
      },
    );
    loading.set(encoding, pending);
  }
  return pending;
}

/** One encoder per encoding for the whole process, loaded synchronously where the runtime can. */
function encoderFor(encoding: TokenEncoding): Tiktoken {
  const encoder = encoders.get(encoding);
  if (encoder) return encoder;
  const require = nodeRequire(import.meta.url);
  if (require !== undefined) {
    try {
      return remember(encoding, require(`js-tiktoken/ranks/${encoding}`) as RanksModule);
    } catch {
      // A bundle for Node may hold the table only as the chunk of the dynamic import: fall through.
    }
  }
  throw createError('ZERDA_NOT_READY', {
    component: `the ${encoding} token counter`,
    reason: `its rank table is not loaded in this runtime yet: \`await loadTokenEncoding('${encoding}')\` (or the counter's load()) before counting`,
  });
}

/**
 * A token counter for OpenAI's `cl100k_base` (GPT-3.5/4) or `o200k_base` (GPT-4o and later)
 * encodings, fully offline. Special-token text such as `<|endoftext|>` in a chunk is counted as
 * ordinary text (never rejected), because retrieved text is data, not a control sequence. Counts are
 * memoized in a bounded LRU, since the composer measures the same passages many times while fitting.
 */
export function tokenCounter(encoding: TokenEncoding = 'cl100k_base', options: TokenCounterOptions = {}): LengthCounter {
  if (!ENCODINGS.includes(encoding)) throw invalidArgument('encoding', `one of ${ENCODINGS.join(', ')}`, encoding);
  assertOptionsObject(options, 'options');
  assertKnownKeys(options, ['cacheSize', 'maxCachedLength'], 'options');
  const cacheSize = options.cacheSize ?? 1024;
  const maxCachedLength = options.maxCachedLength ?? 20_000;
  assertNumber(cacheSize, 'options.cacheSize', { min: 0, integer: true });
  assertNumber(maxCachedLength, 'options.maxCachedLength', { min: 0, integer: true });
  const memo = new Map<string, number>();

  const count = (text: string): number => {
    if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
    if (text.length === 0) return 0;
    const cacheable = cacheSize > 0 && text.length <= maxCachedLength;
    if (cacheable) {
      const known = memo.get(text);
      if (known !== undefined) {
        // Re-insert to mark it most recently used (Map keeps insertion order).
        memo.delete(text);
        memo.set(text, known);
        return known;
      }
    }
    const tokens = encoderFor(encoding).encode(text, [], []).length;
    if (cacheable) {
      memo.set(text, tokens);
      if (memo.size > cacheSize) memo.delete(memo.keys().next().value as string);
    }
    return tokens;
  };
  const load = (): Promise<void> => loadTokenEncoding(encoding);
  const counter = Object.assign(count, { unit: 'tokens', counterName: encoding, load }) as LengthCounter;
  ownCounters.add(counter);
  return counter;
}

/**
 * Turns a counter name or any `(text) => number` into a {@link LengthCounter}. zerda's own counters
 * are returned as they are; a foreign function is wrapped so that a result that is not a finite,
 * non-negative number fails loudly (a NaN length would silently disable every budget check).
 */
export function toLengthCounter(counter: LengthCounter | ((text: string) => number) | LengthCounterName = 'chars'): LengthCounter {
  if (typeof counter === 'string') {
    switch (counter) {
      case 'chars':
        return charCounter;
      case 'words':
        return wordCounter;
      case 'tokens':
        return tokenCounter('cl100k_base');
      case 'cl100k_base':
      case 'o200k_base':
        return tokenCounter(counter);
      default:
        throw invalidArgument('counter', 'a function or one of chars, words, tokens, cl100k_base, o200k_base', counter);
    }
  }
  if (typeof counter !== 'function') throw invalidArgument('counter', 'a function (text) => number or a counter name', counter);
  if (counter === charCounter || counter === wordCounter || ownCounters.has(counter)) return counter as LengthCounter;
  const custom = counter as LengthCounter;
  const name = custom.counterName ?? (counter.name || 'custom');
  const wrapped = (text: string): number => {
    const length = counter(text);
    if (typeof length !== 'number' || !Number.isFinite(length) || length < 0) {
      throw new ZerdaError('ZERDA_INVALID_ARGUMENT', {
        field: `counter ${name}(text)`,
        expected: 'a finite number >= 0',
        received: typeof length === 'number' ? `number ${String(length)}` : typeof length,
      });
    }
    return length;
  };
  const load = custom.load;
  const result = Object.assign(wrapped, { unit: custom.unit ?? 'units', counterName: name }, typeof load === 'function' ? { load: () => load.call(custom) } : {}) as LengthCounter;
  ownCounters.add(result);
  return result;
}
