import { BoundedCache, charCounter, fnv1a, normalizeText } from '@zerda/text';
import {
  resolveConfigSection,
  type ChunkFilter as ChunkFilterStrategy,
  type DroppedChunk,
  type FilterConfig,
  type FilterOutcome,
  type QueryAnalysis,
  type ScoredChunk,
} from '@zerda/types';
import type { FilterConfigInput } from './config-input.js';
import { sha256Hex } from './sha256.js';
import { MinHasher, bandKeys, bandLayout, mayReachJaccard, sortedJaccard, textShingleHashes } from './minhash.js';
import { assertKnownKeys, assertNumber, assertOptionsObject, assertScoredChunks, assertString } from './validate.js';

/** Below this many non-space characters the repeated-character test is not meaningful. */
const REPEAT_MIN_LENGTH = 8;
/** A chunk whose single most frequent non-space character makes up more than this share is noise ("=====", "ههههههه"). */
const REPEAT_SHARE = 0.5;
/** A chunk whose URLs make up more than this share of its non-space characters is a link list, not prose. */
const URL_SHARE = 0.5;
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"'،؛]+/giu;

/**
 * The text a content hash is taken over: search-normalised (case folded, Arabic letters unified,
 * harakat and tatweel removed, digits folded) with whitespace runs collapsed. Two chunks that read
 * the same to a person hash the same.
 */
export function contentKey(text: string): string {
  return collapseWhitespace(normalizeText(text));
}

/** The search-normalised text of a candidate, computed at most once per filter call (the content key and the shingles both start from it). */
function normalizedOf(candidate: Candidate): string {
  return (candidate.normalized ??= normalizeText(candidate.item.chunk.text));
}

/** SHA-256 (hex) of {@link contentKey}. */
export function contentHash(text: string): string {
  return sha256Hex(contentKey(text));
}

/** The hash exact-duplicate grouping starts from: FNV-1a of the key and its length (a safe integer). */
function keyHashOf(key: string): number {
  return fnv1a(key) * 0x200000 + (key.length % 0x200000);
}

// Whitespace that is not already one plain space: a run of two or more, or a single other space
// character. Replacing only those gives the same text as replacing every run, with far fewer replacements.
const NON_SINGLE_SPACE = /\s{2,}|[^\S ]/gu;

function collapseWhitespace(text: string): string {
  return text.replace(NON_SINGLE_SPACE, ' ').trim();
}


/** Why a text looks like noise, or undefined when it reads like prose. */
export function noiseReason(text: string, minLetterRatio: number): string | undefined {
  assertString(text, 'text');
  assertNumber(minLetterRatio, 'minLetterRatio', { min: 0 });
  const { visible: total, letters, majority } = characterStats(text);
  if (total === 0) return 'no visible characters';
  let urlLength = 0;
  if (URL_HINT.test(text)) for (const match of text.matchAll(URL_PATTERN)) urlLength += charCounter(match[0]);
  if (urlLength / total > URL_SHARE) return `mostly URLs (${percent(urlLength / total)} of characters)`;
  const ratio = letters / total;
  if (ratio < minLetterRatio) return `letter ratio ${ratio.toFixed(2)} < ${minLetterRatio} (mostly digits, symbols or punctuation)`;
  if (total >= REPEAT_MIN_LENGTH) {
    const share = majority * 2 > total ? majority / total : 0;
    if (share > REPEAT_SHARE) return `one character repeated (${percent(share)} of characters)`;
  }
  return undefined;
}

/** A cheap necessary condition for {@link URL_PATTERN} (no Unicode mode: a plain scan). */
const URL_HINT = /https?:\/\/|www\./i;
const WHITESPACE_CHARACTER = /^\s$/u;
const LETTER_OR_MARK = /^[\p{L}\p{M}]$/u;
const WHITESPACE = 1;
const LETTER = 2;
const OTHER = 3;
/** The class of each BMP code unit, filled in on first sight (0: not yet seen). */
const unitClasses = new Uint8Array(0x10000);

function classOf(character: string): number {
  return WHITESPACE_CHARACTER.test(character) ? WHITESPACE : LETTER_OR_MARK.test(character) ? LETTER : OTHER;
}

/**
 * One pass over the code points of `text`: how many are not whitespace (`\s`), how many of those
 * are letters or marks (`\p{L}`, `\p{M}`), and how often the most frequent visible code point
 * occurs when it could be a majority (Boyer–Moore vote, then one counting pass; else 0). A lone
 * surrogate counts as one visible, non-letter code point.
 */
function characterStats(text: string): { visible: number; letters: number; majority: number } {
  let visible = 0;
  let letters = 0;
  let candidate = -1;
  let votes = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    let point = text.charCodeAt(index);
    let kind: number;
    const next = index + 1 < length ? text.charCodeAt(index + 1) : 0;
    if (point >= 0xd800 && point <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      kind = classOf(text.slice(index, index + 2));
      point = (point - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
      index++;
    } else {
      kind = unitClasses[point] as number;
      if (kind === 0) unitClasses[point] = kind = classOf(String.fromCharCode(point));
    }
    if (kind === WHITESPACE) continue;
    visible++;
    if (kind === LETTER) letters++;
    if (votes === 0) {
      candidate = point;
      votes = 1;
    } else votes += point === candidate ? 1 : -1;
  }
  if (visible < REPEAT_MIN_LENGTH) return { visible, letters, majority: 0 };
  let majority = 0;
  if (candidate > 0xffff || (candidate >= 0xd800 && candidate <= 0xdfff)) {
    // Astral or lone surrogate: compare whole code points.
    for (const character of text) if (character.codePointAt(0) === candidate) majority++;
  } else for (let index = 0; index < length; index++) if (text.charCodeAt(index) === candidate) majority++;
  return { visible, letters, majority };
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * What the filter derives from a chunk's text alone, computed when first needed and memoised per
 * text (see {@link FEATURE_CACHE_SIZE}): none of it depends on the query, the score or the
 * conversation, only on the text and the filter's configuration.
 */
interface TextFeatures {
  /** Code points of the trimmed text. */
  length?: number;
  /** `noiseReason(text, minLetterRatio)`, or '' when the text reads like prose. */
  noise?: string;
  /** FNV-1a of the content key and its length: equal keys give equal values (verified before a drop). */
  keyHash?: number;
  /** Hashed word shingles of the normalised text. */
  shingles?: Uint32Array;
  /** LSH bucket keys of the shingles' MinHash signature. */
  bands?: number[];
}

/**
 * Distinct texts whose features are remembered: the chunks a busy engine retrieves again and again
 * cost a Map lookup instead of a pass over their text. About 1 KB per entry for a 1,500-character
 * chunk (its shingle hashes); the oldest entry goes first.
 */
const FEATURE_CACHE_SIZE = 32_768;

interface Candidate {
  item: ScoredChunk;
  index: number;
  features: TextFeatures;
  /** `normalizeText` of the chunk text, while this call needs it (not memoised across calls: it would double the memo). */
  normalized?: string;
}

/** Best first: higher score, then earlier in the input (the retriever's order). */
function byQuality(a: Candidate, b: Candidate): number {
  return b.item.score - a.item.score || a.index - b.index;
}

/**
 * Removes what should never reach a model: candidates below a minimum score, chunks outside the
 * length bounds, noise (link lists, number tables, punctuation, one repeated character), exact
 * duplicates (SHA-256 of normalised text) and near-duplicates (MinHash over word shingles with LSH
 * banding, verified by exact shingle Jaccard). Of duplicates the best-scored copy stays. Every
 * dropped chunk is reported with its reason (and `duplicateOf`). Kept chunks keep their input order
 * and identity. Filtering its own output changes nothing (idempotent).
 */
export class ChunkFilter implements ChunkFilterStrategy {
  /** The resolved `filter` configuration section. */
  readonly config: FilterConfig;
  private readonly hasher: MinHasher;
  private readonly layout: { bands: number; rows: number };
  // Bounded in characters of the texts it keeps alive too, not only in entries.
  private readonly cache = new BoundedCache<string, TextFeatures>(FEATURE_CACHE_SIZE, { maxWeight: 16_000_000, maxEntryWeight: 1_000_000 });

  constructor(config?: FilterConfigInput) {
    this.config = resolveConfigSection('filter', config);
    this.hasher = new MinHasher(this.config.nearDuplicates.permutations);
    this.layout = bandLayout(this.config.nearDuplicates.permutations, this.config.nearDuplicates.threshold);
  }

  /** Filters `chunks` (synchronously). `options.analysis` is accepted for interface compatibility and not needed. */
  filter(chunks: ScoredChunk[], options: { analysis?: QueryAnalysis } = {}): FilterOutcome {
    assertScoredChunks(chunks, 'chunks');
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['analysis'], 'options');
    const config = this.config;
    const dropped: DroppedChunk[] = [];
    let survivors: Candidate[] = [];

    chunks.forEach((item, index) => {
      const candidate: Candidate = { item, index, features: this.featuresOf(item.chunk.text) };
      const reason = this.singleChunkVerdict(candidate);
      if (reason) dropped.push({ chunkId: item.chunk.id, ...reason });
      else survivors.push(candidate);
    });

    if (config.exactDuplicates) {
      // Grouped by a hash of the content key; a shared hash is confirmed on the keys themselves,
      // so this is exactly "same SHA-256 of the content key" without hashing every candidate. The
      // digest names a drop.
      const byHash = new Map<number, Candidate[]>();
      const losers = new Set<Candidate>();
      for (const candidate of [...survivors].sort(byQuality)) {
        const keyHash = (candidate.features.keyHash ??= keyHashOf(collapseWhitespace(normalizedOf(candidate))));
        const group = byHash.get(keyHash);
        if (group) {
          const key = collapseWhitespace(normalizedOf(candidate));
          const best = group.find((other) => collapseWhitespace(normalizedOf(other)) === key);
          if (best) {
            losers.add(candidate);
            dropped.push({ chunkId: candidate.item.chunk.id, reason: 'exact_duplicate', duplicateOf: best.item.chunk.id, detail: `same normalised text (sha256 ${sha256Hex(key).slice(0, 12)})` });
            continue;
          }
          group.push(candidate);
        } else byHash.set(keyHash, [candidate]);
      }
      survivors = survivors.filter((candidate) => !losers.has(candidate));
    }

    if (config.nearDuplicates.enabled && survivors.length > 1) {
      const losers = this.nearDuplicates(survivors, dropped);
      survivors = survivors.filter((candidate) => !losers.has(candidate));
    }

    return { kept: survivors.map((candidate) => candidate.item), dropped };
  }

  /** The memoised features of a text (an entry is created on first sight, filled as needed). */
  private featuresOf(text: string): TextFeatures {
    let features = this.cache.get(text);
    if (!features) {
      features = {};
      this.cache.set(text, features);
    }
    return features;
  }

  private singleChunkVerdict({ item, features }: Candidate): Pick<DroppedChunk, 'reason' | 'detail'> | undefined {
    const config = this.config;
    if (config.minScore !== undefined && item.score < config.minScore) {
      return { reason: 'low_score', detail: `score ${item.score} < minScore ${config.minScore}` };
    }
    const length = (features.length ??= charCounter(item.chunk.text.trim()));
    if (length < config.minLength) return { reason: 'too_short', detail: `${length} characters < minLength ${config.minLength}` };
    if (length > config.maxLength) return { reason: 'too_long', detail: `${length} characters > maxLength ${config.maxLength}` };
    if (config.noise) {
      const noise = (features.noise ??= noiseReason(item.chunk.text, config.minLetterRatio) ?? '');
      if (noise !== '') return { reason: 'noise', detail: noise };
    }
    return undefined;
  }

  /**
   * Visits candidates best first and drops one when the exact Jaccard similarity of its shingle
   * set with an already-kept candidate reaches the threshold. Which kept candidates it is compared
   * with depends on how many there are: up to `2 × permutations` candidates, all of them (exact and
   * cheaper than hashing: a merge of two sorted arrays per pair costs less than `permutations`
   * hashes per shingle, and a prefix filter skips most pairs after a fifth of that); beyond
   * that, only those sharing an LSH band (O(n · bands) bucket work plus the verified pairs).
   */
  private nearDuplicates(survivors: readonly Candidate[], dropped: DroppedChunk[]): Set<Candidate> {
    const { threshold, shingleSize, permutations } = this.config.nearDuplicates;
    const exhaustive = threshold <= 0 || survivors.length <= 2 * permutations;
    const losers = new Set<Candidate>();
    const buckets = new Map<number, Candidate[]>();
    const shingles = new Map<Candidate, Uint32Array>();
    const kept: Candidate[] = [];
    for (const candidate of [...survivors].sort(byQuality)) {
      const set = (candidate.features.shingles ??= textShingleHashes(normalizedOf(candidate), shingleSize));
      shingles.set(candidate, set);
      if (set.length === 0) continue;
      const keys = exhaustive ? [] : (candidate.features.bands ??= bandKeys(this.hasher.signature(set), this.layout));
      let others: Iterable<Candidate> = kept;
      if (!exhaustive) {
        const banded = new Set<Candidate>();
        for (const key of keys) for (const other of buckets.get(key) ?? []) banded.add(other);
        others = banded;
      }
      let match: { other: Candidate; similarity: number } | undefined;
      for (const other of others) {
        const otherSet = shingles.get(other) as Uint32Array;
        // Sizes and the sets' smallest hashes rule most pairs out before a full merge.
        if (!mayReachJaccard(set, otherSet, threshold)) continue;
        const similarity = sortedJaccard(set, otherSet);
        if (similarity >= threshold && (!match || similarity > match.similarity || (similarity === match.similarity && byQuality(other, match.other) < 0))) {
          match = { other, similarity };
        }
      }
      if (match) {
        losers.add(candidate);
        dropped.push({
          chunkId: candidate.item.chunk.id,
          reason: 'near_duplicate',
          duplicateOf: match.other.item.chunk.id,
          detail: `shingle Jaccard ${match.similarity.toFixed(3)} >= ${threshold}`,
        });
        continue;
      }
      kept.push(candidate);
      for (const key of keys) {
        const bucket = buckets.get(key);
        if (bucket) bucket.push(candidate);
        else buckets.set(key, [candidate]);
      }
    }
    return losers;
  }
}
