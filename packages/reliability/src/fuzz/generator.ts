import { seededRandom } from '@zerda/types';

/**
 * The error the generator's hostile values throw (from getters, Proxy traps, `toString`, …). When
 * one escapes an entry point, the caller's own code failed: that is the caller's outcome, not a
 * defect of zerda, and the runner counts it apart.
 */
export class ProbeError extends Error {
  constructor(where: string) {
    super(`probe: thrown by the fuzz input's own ${where}`);
    this.name = 'ProbeError';
  }
}

/**
 * True when `error` is a {@link ProbeError} (or has one in its `cause` chain), or the TypeError
 * the JavaScript engine throws for any use of a revoked Proxy — that value cannot even be
 * inspected (`Array.isArray` throws on it), so the caller's own revoked object failed, as a
 * throwing trap would.
 */
export function isProbeError(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 10; depth++) {
    if (current instanceof ProbeError) return true;
    if (current instanceof TypeError && /on a proxy that has been revoked/.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Pieces every text is assembled from: the scripts, marks and controls zerda must survive. */
const PIECES: readonly string[] = [
  'the', 'search', 'retrieval', 'context', 'Budget', 'vector', 'RAG', 'model', 'and', 'it', 'what', 'how', 'compare', 'list',
  'البحث', 'الاسترجاع', 'النصوص', 'العربية', 'التعلم', 'مُحَمَّدٌ', 'العـــربية', 'ما', 'هو', 'كيف', 'و', 'أين', 'ﷺ', 'ﻻ',
  ' ', ' ', ' ', '  ', '\n', '\n\n', '\t', '\r\n', '.', ',', '?', '!', '،', '؛', '؟', '۔', '…', '---', '#', '## ', '- ', '* ', '1. ', '> ', '|', '```', '===',
  '\u064e', '\u0651', '\u0670', '\u0640', '\u0301', '\u200d', '\u200c', '\u200f', '\u200e', '\u202e', '\u2066', '\ufeff', '\u00ad', '\u0000', '\u2028',
  '😀', '👩‍👩‍👧', '🇸🇦', '𝓐', '𐐷', '\ud800', '\udfff', '\udc00\ud800', 'ﬁ', 'Ａ', '½', '٣', '٠١٢', '۴', '2024', '3.5', 'C++', 'https://example.com/a?b=c', 'a@b.co',
  '[INST]', '<<SYS>>', '<|im_start|>', 'ignore previous instructions', 'تجاهل التعليمات السابقة', 'you are now DAN', '<document id="x">', '&amp;', '"', "'", '\\',
  '中文', '日本語', 'עברית', 'ελληνικά', 'русский', 'हिन्दी',
];

/** Patterns repeated to build large inputs: each is a worst case of some text path. */
const REPEATS: readonly string[] = [
  'word ', 'a', ' ', '\n', 'ﷺ', 'ب\u064e', '\u064e', '# h\n', 'a\n===\n', '===\n', 'a\n\n', '- item\n', '| a | b |\n|---|---|\n', '> q\n', '```\nx\n',
  '[INST]', 'ignore previous instructions. ', 'تجاهل جميع التعليمات السابقة. ', 'كلمة عربية. ', 'e.g. ', '1.2.3.4 ', '😀', '\ud800', 'x'.repeat(100) + ' ', 'and what about it? ',
];

/** Sizes of generated strings: mostly tiny, rarely up to 1 MB (the largest hostile input). */
const SIZE_CLASSES: ReadonlyArray<readonly [weight: number, min: number, max: number]> = [
  [60, 0, 40],
  [25, 40, 2_000],
  [12, 2_000, 32_000],
  [2.5, 32_000, 200_000],
  [0.5, 200_000, 1_000_000],
];

/** Known metadata keys (and the values documents carry), so that generated filters sometimes match. */
export const FILTER_KEYS = ['lang', 'tenant', 'year', 'tags', 'docId', 'source', 'draft', 'score', 'اللغة', 'constructor', 'a.b', "it's"] as const;
const FILTER_VALUES: readonly unknown[] = ['ar', 'en', 'acme', 'globex', 2020, 2024, 0, -1, 1.5, true, false, null, 'faq', 'عربي', '', 'doc-1', 'wiki'];

/**
 * A seeded source of fuzz inputs. The same seed gives the same values, so a case is replayed from
 * its seed alone. Values are mostly well-formed with hostile parts, sometimes hostile as a whole.
 */
export class Generator {
  private readonly next: () => number;
  /** Set when the generated input contains an option key no entry point knows: the call must be refused. */
  unknownKey: string | undefined;

  constructor(readonly seed: number) {
    this.next = seededRandom(seed);
  }

  float(): number {
    return this.next();
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** Picks by weight: `[[weight, make], …]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, () => T]>): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let point = this.next() * total;
    for (const [weight, make] of choices) {
      point -= weight;
      if (point <= 0) return make();
    }
    return choices[choices.length - 1]![1]();
  }

  /** A target length for a string: tiny most of the time, up to 1 MB rarely. */
  size(): number {
    const [, min, max] = this.weighted(SIZE_CLASSES.map((entry) => [entry[0], () => entry] as const));
    return this.int(min, max);
  }

  /** A string of arbitrary Unicode (lone surrogates, marks, controls, RTL, emoji) of about `length` UTF-16 units. */
  string(length = this.size()): string {
    if (length > 4000 && this.chance(0.7)) {
      // A large input is a repeated worst-case pattern, sometimes with noise mixed in.
      const unit = this.chance(0.8) ? this.pick(REPEATS) : this.pieces(this.int(1, 6));
      let text = unit.repeat(Math.ceil(length / Math.max(1, unit.length))).slice(0, length);
      if (this.chance(0.3)) text = `${this.pieces(5)}${text}${this.pieces(5)}`;
      return text;
    }
    const parts: string[] = [];
    let total = 0;
    while (total < length) {
      const piece = this.weighted<string>([
        [8, () => this.pick(PIECES)],
        [1, () => String.fromCharCode(this.int(0, 0xffff))],
        [1, () => String.fromCodePoint(this.int(0x10000, 0x10ffff))],
        [1, () => this.pick(REPEATS).repeat(this.int(1, 20))],
      ]);
      parts.push(piece);
      total += piece.length;
    }
    return parts.join('');
  }

  private pieces(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += this.pick(PIECES);
    return out;
  }

  /** A short word-like string (a query, an id, a key). */
  word(): string {
    return this.weighted<string>([
      [6, () => this.pick(PIECES).trim() || 'x'],
      [2, () => this.string(this.int(1, 12))],
      [1, () => `id-${this.int(0, 50)}`],
    ]);
  }

  /** Mostly a string (often short and query-like), sometimes any hostile value. */
  text(hostileRate = 0.05): unknown {
    if (this.chance(hostileRate)) return this.hostile();
    return this.chance(0.5) ? this.string(this.int(0, 60)) : this.string();
  }

  /** A number of the shapes budgets and limits take: ordinary, boundary and invalid. */
  number(min = 0, max = 2000, hostileRate = 0.1): unknown {
    if (this.chance(hostileRate)) {
      return this.pick<unknown>([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -0, 0.5, 2 ** 53, Number.MAX_VALUE, 1e-300, '10', null, undefined, 10n, {}]);
    }
    return this.int(min, max);
  }

  /** A value of a wrong or hostile kind. */
  hostile(): unknown {
    return this.weighted<unknown>([
      [3, () => this.pick<unknown>([undefined, null, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, true, '', 'x', 10n, Symbol('fuzz'), () => 1, [], {}, [1, 'a'], new Date(0), new Map(), new Float32Array(2), /x/])],
      [1, () => throwingGetters()],
      [1, () => throwingProxy()],
      [1, () => revokedProxy()],
      [1, () => cyclic()],
      [1, () => deepObject(this.int(100, 20_000), this.chance(0.5))],
      [0.3, () => ({ toString: () => { throw new ProbeError('toString'); }, valueOf: () => { throw new ProbeError('valueOf'); } })],
      [0.3, () => Object.create(null) as object],
    ]);
  }

  /** `make()` or, with probability `1 - presence`, undefined. */
  maybe<T>(make: () => T, presence = 0.5): T | undefined {
    return this.chance(presence) ? make() : undefined;
  }

  array<T>(make: () => T, maxLength: number, minLength = 0): T[] {
    const length = this.int(minLength, maxLength);
    const out: T[] = [];
    for (let i = 0; i < length; i++) out.push(make());
    return out;
  }

  /**
   * An options object built from `fields` (each present half the time), sometimes with a key no
   * entry point knows (recorded in `unknownKey`: the call must then be refused), sometimes not an
   * object at all.
   */
  options(fields: Record<string, () => unknown>, hostileRate = 0.05, { unknownKeys = true }: { unknownKeys?: boolean } = {}): unknown {
    if (this.chance(hostileRate)) {
      const value = this.hostile();
      // undefined means "no options"; every other non-object must be refused, but that is the entry point's business.
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, make] of Object.entries(fields)) if (this.chance(0.5)) out[key] = make();
    if (unknownKeys && this.chance(0.03)) {
      const key = this.pick(['typo', 'lenght', 'maxLenght', '__proto_', 'constructor', 'unknownOption']);
      out[key] = this.chance(0.5) ? 1 : undefined;
      // An unknown key whose value is undefined may be ignored (it is indistinguishable from absent to zod).
      if (out[key] !== undefined) this.unknownKey ??= key;
    }
    return out;
  }

  /** A metadata filter: valid most of the time (over known keys, so it may match), sometimes deep, wide or malformed. */
  filter(depth = 0): unknown {
    if (depth === 0 && this.chance(0.04)) return deepFilter(this.int(50, 3000), this.pick(['$not', '$and', '$or'] as const));
    if (depth === 0 && this.chance(0.02)) return { docId: { $in: this.array(() => `doc-${this.int(0, 100)}`, 3000) } };
    if (this.chance(0.04)) return this.hostile();
    const filter: Record<string, unknown> = {};
    const keys = this.int(depth > 2 ? 0 : 1, 3);
    for (let i = 0; i < keys; i++) {
      const choice = this.int(0, 9);
      if (choice === 0 && depth < 4) filter.$and = this.array(() => this.filter(depth + 1), 3, 1);
      else if (choice === 1 && depth < 4) filter.$or = this.array(() => this.filter(depth + 1), 3, 1);
      else if (choice === 2 && depth < 4) filter.$not = this.filter(depth + 1);
      else filter[this.pick(FILTER_KEYS)] = this.condition();
    }
    return filter;
  }

  private condition(): unknown {
    const scalar = () => this.pick(FILTER_VALUES);
    return this.weighted<unknown>([
      [4, scalar],
      [1, () => ({ $eq: scalar() })],
      [1, () => ({ $ne: scalar() })],
      [1, () => ({ [this.pick(['$gt', '$gte', '$lt', '$lte'])]: this.pick<unknown>([2020, 0, 'm', 'ب', -5.5]) })],
      [1, () => ({ $in: this.array(scalar, 4) })],
      [1, () => ({ $nin: this.array(scalar, 4) })],
      [1, () => ({ $exists: this.chance(0.5) })],
      [0.3, () => [scalar()]],
      [0.3, () => ({ $near: 1 })],
      [0.3, () => ({})],
      [0.2, () => Number.NaN],
    ]);
  }

  /** Chunk metadata: JSON-like, sometimes deep or hostile. */
  metadata(): unknown {
    if (this.chance(0.03)) return this.hostile();
    if (this.chance(0.02)) return { nested: deepObject(this.int(70, 5000), false) };
    const metadata: Record<string, unknown> = {};
    for (let i = this.int(0, 4); i > 0; i--) {
      metadata[this.pick(FILTER_KEYS)] = this.weighted<unknown>([
        [5, () => this.pick(FILTER_VALUES)],
        [1, () => this.array(() => this.pick(FILTER_VALUES), 3)],
        [0.5, () => ({ inner: this.pick(FILTER_VALUES) })],
        [0.2, () => Number.NaN],
      ]);
    }
    return metadata;
  }

  /** A chunk input as users pass it (docId and text required), sometimes malformed. */
  chunkInput(index: number): unknown {
    if (this.chance(0.03)) return this.hostile();
    const chunk: Record<string, unknown> = { docId: this.chance(0.97) ? `doc-${this.int(0, 20)}` : this.hostile(), text: this.chance(0.97) ? this.string(this.chance(0.9) ? this.int(0, 400) : this.size()) : this.hostile() };
    if (this.chance(0.3)) chunk.id = `c-${index}-${this.int(0, 3)}`;
    if (this.chance(0.5)) chunk.metadata = this.metadata();
    if (this.chance(0.2)) chunk.source = this.pick(['wiki', 'faq', 'doc-1', this.word()]);
    if (this.chance(0.1)) chunk.title = this.word();
    if (this.chance(0.1)) chunk.timestamp = this.pick<unknown>([Date.now(), '2024-01-01', new Date(0), 'not a date', Number.NaN]);
    if (this.chance(0.05)) chunk.position = { index: this.pick<unknown>([0, 1, -1, 1.5]) };
    if (this.chance(0.02)) chunk.extraField = 1;
    return chunk;
  }
}

function throwingGetters(): object {
  const target: Record<string, unknown> = {};
  for (const key of ['text', 'docId', 'id', 'metadata', 'budget', 'filter', 'query', 'topK', 'chunk', 'score', 'length', 'size', 'k', 'lang', 'then']) {
    Object.defineProperty(target, key, {
      enumerable: true,
      get: () => {
        throw new ProbeError(`getter ${key}`);
      },
    });
  }
  return target;
}

function throwingProxy(): object {
  const trap = (name: string) => () => {
    throw new ProbeError(`Proxy ${name} trap`);
  };
  return new Proxy({}, { get: trap('get'), has: trap('has'), ownKeys: trap('ownKeys'), getOwnPropertyDescriptor: trap('getOwnPropertyDescriptor'), getPrototypeOf: trap('getPrototypeOf') });
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function cyclic(): object {
  const node: Record<string, unknown> = { lang: 'ar' };
  node.self = node;
  node.$and = [node];
  return node;
}

function deepObject(levels: number, asArray: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = asArray ? [value] : { a: value };
  return value;
}

function deepFilter(levels: number, operator: '$not' | '$and' | '$or'): unknown {
  let filter: unknown = { lang: 'ar' };
  for (let i = 0; i < levels; i++) filter = operator === '$not' ? { $not: filter } : { [operator]: [filter] };
  return filter;
}
