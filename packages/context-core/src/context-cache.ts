import {
  canonicalFilterKey,
  invalidArgument,
  metadataSchema,
  parseMetadataFilter,
  parseOrThrow,
  resolveConfigSection,
  type CacheConfig,
  type MetadataFilter,
  type Metadata,
} from '@zerda/types';
import type { CacheConfigInput } from './config-input.js';
import { assertKnownKeys, assertNumber, assertOptionsObject, assertString } from './validate.js';

/** Everything that changes a run's answer, and so must be part of its cache key. */
export interface CacheKeyInput {
  /** The query actually analysed and retrieved with (after history enrichment). */
  effectiveQuery: string;
  /** The metadata filter (compared canonically: key order does not matter). */
  filter?: MetadataFilter;
  maxChunks?: number;
  /** The context budget, in the counter's unit. */
  budget?: number;
  /** Corpus generation: a number the engine bumps on every index/add/remove, so a changed corpus never hits an old entry. Default 0. */
  generation?: number;
  /** Anything else that changes the answer (template, counter unit, tenant …), as JSON values. */
  extra?: Metadata;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** hits / (hits + misses); 0 before the first lookup. */
  hitRate: number;
  size: number;
  /** Entries removed to make room (least recently used first). */
  evictions: number;
  /** Entries removed because their time to live had passed. */
  expirations: number;
}

export interface ContextCacheOptions {
  /** Clock in ms (default `Date.now`); inject one in tests to move time. */
  now?: () => number;
  /**
   * How stored values are protected from callers. Both store a `structuredClone` of what `set`
   * receives (so the caller may keep changing its object). `clone` (default) hands out a fresh clone
   * on every hit; `freeze` deep-freezes the stored copy once and hands out that same frozen object
   * (no copying per hit; writes to it throw in strict mode).
   */
  copy?: 'clone' | 'freeze';
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

const KEY_VERSION = 'zerda-cache-v1';

function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value as object)) return value;
  seen.add(value as object);
  // Typed arrays cannot be frozen while they have elements; they are left as they are.
  if (ArrayBuffer.isView(value)) return value;
  for (const key of Reflect.ownKeys(value as object)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}

/**
 * A bounded least-recently-used cache with a time to live, for whole `ContextResult`s (or anything
 * structured-cloneable). A hit returns the complete stored value — counts, chunks, analysis — never a
 * stub; the engine marks it `fromCache: true`. Keys come from {@link ContextCache.key}, which covers
 * every input that changes the answer. All operations are synchronous, so concurrent runs can share
 * one cache safely.
 */
export class ContextCache<T = unknown> {
  /** The resolved `cache` configuration section. */
  readonly config: CacheConfig;
  private readonly entries = new Map<string, Entry<T>>();
  private readonly now: () => number;
  private readonly copy: 'clone' | 'freeze';
  private hits = 0;
  private misses = 0;
  private evictions = 0;
  private expirations = 0;

  constructor(config?: CacheConfigInput, options: ContextCacheOptions = {}) {
    this.config = resolveConfigSection('cache', config);
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['now', 'copy'], 'options');
    if (options.now !== undefined && typeof options.now !== 'function') throw invalidArgument('options.now', 'a function returning ms', options.now);
    if (options.copy !== undefined && options.copy !== 'clone' && options.copy !== 'freeze') throw invalidArgument('options.copy', 'one of "clone", "freeze"', options.copy);
    this.now = options.now ?? Date.now;
    this.copy = options.copy ?? 'clone';
  }

  /**
   * The canonical cache key of a run: a JSON array of a version tag, the effective query (exactly,
   * since any character can change the analysis), the canonical filter, the limits, the corpus
   * generation and the canonical `extra`. Distinct inputs give distinct keys; inputs that differ only
   * in key order inside `filter`/`extra` give the same key.
   */
  static key(input: CacheKeyInput): string {
    if (input === null || typeof input !== 'object') throw invalidArgument('key', 'an object { effectiveQuery, filter?, maxChunks?, budget?, generation?, extra? }', input);
    assertKnownKeys(input as unknown as Record<string, unknown>, ['effectiveQuery', 'filter', 'maxChunks', 'budget', 'generation', 'extra'], 'key');
    assertString(input.effectiveQuery, 'key.effectiveQuery');
    const filter = input.filter === undefined ? undefined : parseMetadataFilter(input.filter, 'key.filter');
    if (input.maxChunks !== undefined) assertNumber(input.maxChunks, 'key.maxChunks', { min: 1, integer: true });
    if (input.budget !== undefined) assertNumber(input.budget, 'key.budget', { min: 0 });
    const generation = input.generation ?? 0;
    assertNumber(generation, 'key.generation', { min: 0, integer: true });
    const extra = input.extra === undefined ? undefined : parseOrThrow(metadataSchema, input.extra, 'key.extra');
    return JSON.stringify([
      KEY_VERSION,
      input.effectiveQuery,
      canonicalFilterKey(filter),
      input.maxChunks ?? null,
      input.budget ?? null,
      generation,
      // canonicalFilterKey is the one canonical-JSON function (sorted keys at every level); extra is JSON too.
      extra === undefined ? '' : canonicalFilterKey(extra as MetadataFilter),
    ]);
  }

  /** The stored value for `key`, or undefined (a miss) when absent, expired or the cache is disabled. */
  get(key: string): T | undefined {
    assertString(key, 'key');
    if (!this.config.enabled) return undefined;
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      this.expirations++;
      this.misses++;
      return undefined;
    }
    // Most recently used goes to the end of the Map's insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return this.copy === 'clone' ? structuredClone(entry.value) : entry.value;
  }

  /** Whether a live entry exists, without counting a hit or a miss or refreshing its recency. */
  has(key: string): boolean {
    assertString(key, 'key');
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  /**
   * Stores a snapshot of `value` (a structured clone, deep-frozen with `copy: 'freeze'`) for
   * `options.ttlMs` (default `config.ttlMs`), evicting the least recently used entries beyond
   * `maxEntries`. A value that cannot be cloned is rejected and the cache is left unchanged.
   */
  set(key: string, value: T, options: { ttlMs?: number } = {}): void {
    assertString(key, 'key');
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['ttlMs'], 'options');
    const ttlMs = options.ttlMs ?? this.config.ttlMs;
    assertNumber(ttlMs, 'options.ttlMs', { min: 1 });
    if (!this.config.enabled) return;
    let stored: T;
    try {
      stored = structuredClone(value);
    } catch {
      throw invalidArgument('value', 'structured-cloneable data (no functions, symbols or DOM nodes)', value);
    }
    if (this.copy === 'freeze') stored = deepFreeze(stored);
    this.entries.delete(key);
    this.entries.set(key, { value: stored, expiresAt: this.now() + ttlMs });
    this.enforceLimit();
  }

  /** Removes one entry; true when it existed. */
  delete(key: string): boolean {
    assertString(key, 'key');
    return this.entries.delete(key);
  }

  /** Removes every entry (statistics are kept; use {@link resetStats} to clear them). */
  clear(): void {
    this.entries.clear();
  }

  /** Zeroes hits, misses, evictions and expirations (entries stay). */
  resetStats(): void {
    this.hits = 0;
    this.misses = 0;
    this.evictions = 0;
    this.expirations = 0;
  }

  /** Removes expired entries now (they are otherwise removed lazily); returns how many. */
  prune(): number {
    const now = this.now();
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.entries.delete(key);
        removed++;
      }
    }
    this.expirations += removed;
    return removed;
  }

  /** Entries currently held (expired ones may linger until looked up or pruned). */
  get size(): number {
    return this.entries.size;
  }

  /** Counters since creation or the last {@link resetStats}. */
  get stats(): CacheStats {
    const lookups = this.hits + this.misses;
    return {
      hits: this.hits,
      misses: this.misses,
      hitRate: lookups === 0 ? 0 : this.hits / lookups,
      size: this.entries.size,
      evictions: this.evictions,
      expirations: this.expirations,
    };
  }

  private enforceLimit(): void {
    if (this.entries.size <= this.config.maxEntries) return;
    // Expired entries go first: dropping them costs nothing.
    this.prune();
    while (this.entries.size > this.config.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.evictions++;
    }
  }
}
