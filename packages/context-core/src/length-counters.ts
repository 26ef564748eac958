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

/** What this module uses of a gpt-tokenizer encoding module. */
interface TokenEncoder {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  setMergeCacheSize?(size: number): void;
}

/**
 * Entries of gpt-tokenizer's merge cache (its default is 100,000). Its LRU re-inserts every hit into
 * a Map and evicts with `keys().next()`, which V8 answers by walking the deleted entries at the
 * front: once a long-lived process has counted enough distinct words to fill it, every count pays a
 * walk over up to the cache's size (one fuzz case took 26 s in a process that had run 460,000
 * cases, 48 ms in a fresh one; counting SciFact after 2.4 MB of distinct words ran 5× slower than
 * warm). A smaller cache bounds that walk and keeps the common words.
 */
export const TOKEN_MERGE_CACHE_SIZE = 8192;

const encoders = new Map<TokenEncoding, TokenEncoder>();
const loading = new Map<TokenEncoding, Promise<void>>();
/** Counters this module made (or wrapped), which need no further wrapping. */
const ownCounters = new WeakSet<(text: string) => number>();
/** Special-token text (`<|endoftext|>`) in retrieved chunks is data: counted as ordinary text, never rejected. */
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * gpt-tokenizer 4.0.0's encodings (the same cl100k/o200k rank tables as OpenAI's tiktoken; it
 * caches merged pieces, which makes Arabic about 20× faster to count than js-tiktoken). Each module
 * holds a 1–2 MB rank table, so it is never loaded when this package is imported: each is a literal
 * dynamic `import()`, which bundlers split into a chunk of its own that an application downloads
 * only when it counts tokens in that encoding.
 */
const ENCODING_MODULES: Record<TokenEncoding, () => Promise<TokenEncoder>> = {
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base') as Promise<TokenEncoder>,
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base') as Promise<TokenEncoder>,
};

function remember(encoding: TokenEncoding, loaded: TokenEncoder): TokenEncoder {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    if (typeof loaded?.countTokens !== 'function') throw new TypeError(`gpt-tokenizer/encoding/${encoding} has no countTokens`);
    loaded.setMergeCacheSize?.(TOKEN_MERGE_CACHE_SIZE);
    encoder = loaded;
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
    pending = ENCODING_MODULES[encoding]().then(
      (loaded) => {
        remember(encoding, loaded);
      },
      (error: unknown) => {
        loading.delete(encoding);
        throw createError('ZERDA_NOT_READY', { component: `the ${encoding} token counter`, reason: `its rank table (gpt-tokenizer/encoding/${encoding}) failed to load: ${error instanceof Error ? error.message : String(error)}` }, error);
      },
    );
    loading.set(encoding, pending);
  }
  return pending;
}

/** One encoder per encoding for the whole process, loaded synchronously where the runtime can. */
function encoderFor(encoding: TokenEncoding): TokenEncoder {
  const encoder = encoders.get(encoding);
  if (encoder) return encoder;
  const require = nodeRequire(import.meta.url);
  if (require !== undefined) {
    try {
      return remember(encoding, require(`gpt-tokenizer/cjs/encoding/${encoding}`) as TokenEncoder);
    } catch {
      // A bundle for Node may hold the table only as the chunk of the dynamic import: fall through.
    }
  }
  throw createError('ZERDA_NOT_READY', {
    component: `the ${encoding} token counter`,
    reason: `its rank table is not loaded in this runtime yet: \`await loadTokenEncoding('${encoding}')\` (or the counter's load()) before counting`,
  });
}

/** Runs of whitespace or of non-whitespace up to this long are encoded as they are (exact counts). */
const MAX_EXACT_RUN = 64;
/** Longer runs are encoded in parts of this many UTF-16 units. */
const RUN_PART = 32;

function isSpaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/**
 * Tokens of `text`. Byte-pair encoding costs time quadratic in the length of a pre-tokenizer piece,
 * and a piece is a whole run of letters, digits, punctuation or spaces: 10 KB of letters without a
 * space took over a minute. So a run longer than {@link MAX_EXACT_RUN} units is encoded in parts of
 * {@link RUN_PART} units (never splitting a surrogate pair), which keeps counting linear; such runs
 * (base64, minified code, a line of dashes) may count up to one token more per part than the exact
 * encoding. Text without long runs — all ordinary prose in any language — is counted exactly, in one call.
 */
function countPieces(encoder: TokenEncoder, text: string): number {
  const cuts: number[] = [];
  let runStart = 0;
  let runSpace = text.length > 0 && isSpaceCode(text.charCodeAt(0));
  let partStart = 0;
  for (let index = 0; index < text.length; index++) {
    const space = isSpaceCode(text.charCodeAt(index));
    if (space !== runSpace) {
      runSpace = space;
      runStart = index;
      partStart = index;
      continue;
    }
    if (index - runStart >= MAX_EXACT_RUN && index - partStart >= RUN_PART) {
      // Never between the halves of a surrogate pair.
      const code = text.charCodeAt(index);
      if (code >= 0xdc00 && code <= 0xdfff && index > 0 && (text.charCodeAt(index - 1) & 0xfc00) === 0xd800) continue;
      cuts.push(index);
      partStart = index;
    }
  }
  if (cuts.length === 0) return encoder.countTokens(text, ORDINARY_TEXT);
  // The first cut of a run lies MAX_EXACT_RUN into it; the run's beginning was encoded with what preceded it.
  let total = 0;
  let from = 0;
  for (const cut of cuts) {
    total += encoder.countTokens(text.slice(from, cut), ORDINARY_TEXT);
    from = cut;
  }
  return total + encoder.countTokens(text.slice(from), ORDINARY_TEXT);
}

/**
 * A token counter for OpenAI's `cl100k_base` (GPT-3.5/4) or `o200k_base` (GPT-4o and later)
 * encodings, fully offline. Special-token text such as `<|endoftext|>` in a chunk is counted as
 * ordinary text (never rejected), because retrieved text is data, not a control sequence. Counts are
 * memoized in a bounded LRU, since the composer measures the same passages many times while fitting.
 * Counting is linear in the text: a run of more than 64 characters without a space (or of spaces)
 * is counted in 32-character parts, which may count it slightly high (see `countPieces`).
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
    const tokens = countPieces(encoderFor(encoding), text);
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
