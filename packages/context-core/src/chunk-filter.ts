import { createHash } from 'node:crypto';
import { charCounter, normalizeText, words } from '@zerda/text';
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
import { MinHasher, bandKeys, bandLayout, jaccard, shingleSet } from './minhash.js';
import { assertKnownKeys, assertOptionsObject, assertScoredChunks } from './validate.js';

/** Below this many non-space characters the repeated-character test is not meaningful. */
const REPEAT_MIN_LENGTH = 8;
/** A chunk whose single most frequent non-space character makes up more than this share is noise ("=====", "ههههههه"). */
const REPEAT_SHARE = 0.5;
/** A chunk whose URLs make up more than this share of its non-space characters is a link list, not prose. */
const URL_SHARE = 0.5;
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"'،؛]+/giu;
const NOT_LETTERS = /[^\p{L}\p{M}]+/gu;

/**
 * The text a content hash is taken over: search-normalised (case folded, Arabic letters unified,
 * harakat and tatweel removed, digits folded) with whitespace runs collapsed. Two chunks that read
 * the same to a person hash the same.
 */
export function contentKey(text: string): string {
  return collapseWhitespace(normalizeText(text));
}

/** SHA-256 (hex) of {@link contentKey}. */
export function contentHash(text: string): string {
  return sha256(contentKey(text));
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Why a text looks like noise, or undefined when it reads like prose. */
export function noiseReason(text: string, minLetterRatio: number): string | undefined {
  const visible = text.replace(/\s+/gu, '');
  if (visible.length === 0) return 'no visible characters';
  const total = charCounter(visible);
  let urlLength = 0;
  for (const match of text.matchAll(URL_PATTERN)) urlLength += charCounter(match[0]);
  if (urlLength / total > URL_SHARE) return `mostly URLs (${percent(urlLength / total)} of characters)`;
  // Deleting the non-letters and counting what is left allocates one string, not one per letter.
  const letters = charCounter(visible.replace(NOT_LETTERS, ''));
  const ratio = letters / total;
  if (ratio < minLetterRatio) return `letter ratio ${ratio.toFixed(2)} < ${minLetterRatio} (mostly digits, symbols or punctuation)`;
  if (total >= REPEAT_MIN_LENGTH) {
    const share = majorityShare(visible, total);
    if (share > REPEAT_SHARE) return `one character repeated (${percent(share)} of characters)`;
  }
  return undefined;
}

/**
 * The share of the most frequent code point when one makes up more than half of the text, else 0.
 * Boyer–Moore majority vote: one pass to find the only possible candidate, one to count it — no map.
 */
function majorityShare(text: string, total: number): number {
  let candidate = -1;
  let votes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    if (votes === 0) {
      candidate = code;
      votes = 1;
    } else votes += code === candidate ? 1 : -1;
  }
  let count = 0;
  for (const character of text) if (character.codePointAt(0) === candidate) count++;
  return count * 2 > total ? count / total : 0;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

interface Candidate {
  item: ScoredChunk;
  index: number;
  /** normalizeText of the chunk text, computed once for both duplicate checks. */
  normalized?: string;
}

function normalizedText(candidate: Candidate): string {
  candidate.normalized ??= normalizeText(candidate.item.chunk.text);
  return candidate.normalized;
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
      const reason = this.singleChunkVerdict(item);
      if (reason) dropped.push({ chunkId: item.chunk.id, ...reason });
      else survivors.push({ item, index });
    });

    if (config.exactDuplicates) {
      const byHash = new Map<string, Candidate>();
      const losers = new Set<Candidate>();
      for (const candidate of [...survivors].sort(byQuality)) {
        const hash = sha256(collapseWhitespace(normalizedText(candidate)));
        const best = byHash.get(hash);
        if (best) {
          losers.add(candidate);
          dropped.push({ chunkId: candidate.item.chunk.id, reason: 'exact_duplicate', duplicateOf: best.item.chunk.id, detail: `same normalised text (sha256 ${hash.slice(0, 12)})` });
        } else byHash.set(hash, candidate);
      }
      survivors = survivors.filter((candidate) => !losers.has(candidate));
    }

    if (config.nearDuplicates.enabled && survivors.length > 1) {
      const losers = this.nearDuplicates(survivors, dropped);
      survivors = survivors.filter((candidate) => !losers.has(candidate));
    }

    return { kept: survivors.map((candidate) => candidate.item), dropped };
  }

  private singleChunkVerdict(item: ScoredChunk): Pick<DroppedChunk, 'reason' | 'detail'> | undefined {
    const config = this.config;
    if (config.minScore !== undefined && item.score < config.minScore) {
      return { reason: 'low_score', detail: `score ${item.score} < minScore ${config.minScore}` };
    }
    const length = charCounter(item.chunk.text.trim());
    if (length < config.minLength) return { reason: 'too_short', detail: `${length} characters < minLength ${config.minLength}` };
    if (length > config.maxLength) return { reason: 'too_long', detail: `${length} characters > maxLength ${config.maxLength}` };
    if (config.noise) {
      const noise = noiseReason(item.chunk.text, config.minLetterRatio);
      if (noise) return { reason: 'noise', detail: noise };
    }
    return undefined;
  }

  /**
   * Visits candidates best first; each is compared only with already-kept candidates that share an
   * LSH band with it (O(n · bands) bucket work plus the verified pairs), and dropped when the exact
   * Jaccard similarity of their shingle sets reaches the threshold.
   */
  private nearDuplicates(survivors: readonly Candidate[], dropped: DroppedChunk[]): Set<Candidate> {
    const { threshold, shingleSize } = this.config.nearDuplicates;
    const losers = new Set<Candidate>();
    const buckets = new Map<number, Candidate[]>();
    const shingles = new Map<Candidate, Set<number>>();
    const kept: Candidate[] = [];
    for (const candidate of [...survivors].sort(byQuality)) {
      const set = shingleSet(words(normalizedText(candidate)), shingleSize);
      shingles.set(candidate, set);
      if (set.size === 0) continue;
      const keys = bandKeys(this.hasher.signature(set), this.layout);
      const others = new Set<Candidate>();
      if (threshold <= 0) for (const other of kept) others.add(other);
      else for (const key of keys) for (const other of buckets.get(key) ?? []) others.add(other);
      let match: { other: Candidate; similarity: number } | undefined;
      for (const other of others) {
        const similarity = jaccard(set, shingles.get(other) as Set<number>);
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
