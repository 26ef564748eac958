import * as z from 'zod';
import type { Analyzer } from '@zerda/text';
import {
  cosineSimilarity,
  invalidArgument,
  mergeScores,
  parseOrThrow,
  resolveConfigSection,
  type ChunkRanker,
  type DocumentChunk,
  type DroppedChunk,
  type RankOptions,
  type RankingConfig,
  type ScoredChunk,
  type SourceQualityMap,
  type TermMatches,
} from '@zerda/types';
import type { RankingConfigInput } from './config-input.js';
import { jaccard } from './minhash.js';
import { assertOptionsObject, assertScoredChunks, resolveTextAnalyzer } from './validate.js';

const DAY_MS = 86_400_000;
/** The neutral value of a factor the ranker knows nothing about (no timestamp, unknown source …). */
const NEUTRAL = 0.5;

const unitScore = z.number().min(0).max(1);
const rankOptionsSchema = z.strictObject({
  analysis: z.looseObject({ keywords: z.array(z.string()) }).optional(),
  maxChunks: z.number().int().positive().optional(),
  sourceQuality: z.record(z.string(), z.union([unitScore, z.strictObject({ score: unitScore, label: z.string().optional() })])).optional(),
  now: z.number().refine(Number.isFinite, 'a finite number (ms since epoch)').optional(),
});

export interface CompositeRankerOptions {
  /** Analyzer used to find the query's keywords in chunk text; must match the one that produced `analysis.keywords`. Default: `defaultAnalyzer`. */
  analyzer?: Analyzer;
  /** Clock for recency when `rank()` gets no `now` (ms since epoch). Default `Date.now`. */
  clock?: () => number;
}

/** What {@link CompositeRanker.rankDetailed} returns: the ranking plus the candidates it left out and why. */
export interface RankOutcome {
  ranked: ScoredChunk[];
  /** `per_document_cap` (the document already had `maxPerDocument` chunks) or `max_chunks` (beyond the limit). */
  dropped: DroppedChunk[];
}

/** The quality of a source from a map entry (a number, or `{ score }`). */
export function sourceQualityOf(map: SourceQualityMap | undefined, source: string): number | undefined {
  const entry = map?.[source];
  if (entry === undefined) return undefined;
  return typeof entry === 'number' ? entry : entry.score;
}

interface Ranked {
  item: ScoredChunk;
  original: ScoredChunk;
  /** The analysed terms of title and text, when they were needed (MMR similarity). */
  terms: Set<string> | undefined;
}

/** A well-formed `termMatches` as sets, or undefined when the value cannot be trusted as such. */
function matchSets(matches: TermMatches | undefined): { checked: Set<string>; matched: Set<string> } | undefined {
  if (typeof matches !== 'object' || matches === null || !Array.isArray(matches.checked) || !Array.isArray(matches.matched)) return undefined;
  const checked = new Set(matches.checked);
  for (const term of matches.matched) if (!checked.has(term)) return undefined;
  return { checked, matched: new Set(matches.matched) };
}

/** Ranking order: composite, then the original retrieval score, then chunk id (code-unit order). */
function compareRanked(a: Ranked, b: Ranked): number {
  return (
    (b.item.scores.composite as number) - (a.item.scores.composite as number) ||
    b.original.score - a.original.score ||
    (a.item.chunk.id < b.item.chunk.id ? -1 : a.item.chunk.id > b.item.chunk.id ? 1 : 0)
  );
}

/**
 * Orders candidates by a composite score: a weighted sum of five factors, each in [0, 1] and each
 * recorded on `scores` so that a reader can see why a chunk ranked where it did:
 * - `retrieval`: the candidate's `score`, min-max normalised within the set (a lone candidate, or a set of equal scores, gets 1);
 * - `keywordBoost`: the share of `analysis.keywords` present among the analysed terms of the chunk's text and title;
 * - `sourceQuality`: from the `sourceQuality` map by `chunk.source`, else a `scores.sourceQuality` set earlier, else 0.5;
 * - `recency`: 0.5^(age in days / half-life), 1 for future timestamps, 0.5 without a timestamp;
 * - `position`: 1 / (1 + index of the chunk in its document): 1, 0.5, 0.33 … (leading chunks usually carry the topic).
 *
 * `score` becomes `scores.composite`. Options: a per-document cap and MMR diversity (similarity of
 * embeddings when both chunks have one, else Jaccard of analysed terms). Ties break on the original
 * score, then the chunk id, so rankings are reproducible. Input objects are never modified.
 */
export class CompositeRanker implements ChunkRanker {
  /** The resolved `ranking` configuration section. */
  readonly config: RankingConfig;
  private readonly textAnalyzer: Analyzer;
  private readonly clock: () => number;

  constructor(config?: RankingConfigInput, options: CompositeRankerOptions = {}) {
    this.textAnalyzer = resolveTextAnalyzer(options, ['analyzer', 'clock']);
    this.config = resolveConfigSection('ranking', config);
    if (options.clock !== undefined && typeof options.clock !== 'function') throw invalidArgument('options.clock', 'a function returning ms since epoch', options.clock);
    this.clock = options.clock ?? Date.now;
  }

  /** Ranks `chunks` best first, at most `options.maxChunks` of them (synchronously). */
  rank(chunks: ScoredChunk[], options: RankOptions = {}): ScoredChunk[] {
    return this.rankDetailed(chunks, options).ranked;
  }

  /** Like {@link rank}, plus the candidates the cap or the limit left out. */
  rankDetailed(chunks: ScoredChunk[], options: RankOptions = {}): RankOutcome {
    assertScoredChunks(chunks, 'chunks');
    assertOptionsObject(options, 'options');
    const parsed = parseOrThrow(rankOptionsSchema, options, 'options');
    const now = parsed.now ?? this.clock();
    const keywords = [...new Set(parsed.analysis?.keywords ?? [])];
    const limit = parsed.maxChunks ?? chunks.length;

    let low = Infinity;
    let high = -Infinity;
    for (const item of chunks) {
      low = Math.min(low, item.score);
      high = Math.max(high, item.score);
    }
    const weights = this.config.weights;
    const fingerprint = this.textAnalyzer.fingerprint;
    // Hits of one query share their TermMatches objects: turn each into sets once.
    const sets = new Map<TermMatches, ReturnType<typeof matchSets>>();
    const ranked: Ranked[] = chunks.map((original) => {
      const chunk = original.chunk;
      let terms: Set<string> | undefined;
      const analyzed = (): Set<string> => (terms ??= new Set(this.textAnalyzer.analyze(chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text)));
      if (this.config.diversityLambda !== undefined) analyzed();
      const retrieval = high > low ? (original.score - low) / (high - low) : 1;
      let keywordBoost = 0;
      if (keywords.length > 0) {
        // What the keyword retriever found in the postings, when it analysed as this ranker does,
        // answers for the keywords it looked up; any other keyword needs the chunk analysed.
        const matches = original.termMatches;
        let known: ReturnType<typeof matchSets>;
        if (typeof fingerprint === 'string' && typeof matches === 'object' && matches !== null && matches.analyzer === fingerprint) {
          if (!sets.has(matches)) sets.set(matches, matchSets(matches));
          known = sets.get(matches);
        }
        let present = 0;
        for (const keyword of keywords) {
          if (terms === undefined && known?.checked.has(keyword)) {
            if (known.matched.has(keyword)) present++;
          } else if (analyzed().has(keyword)) present++;
        }
        keywordBoost = present / keywords.length;
      }
      const sourceQuality = sourceQualityOf(parsed.sourceQuality, chunk.source) ?? original.scores?.sourceQuality ?? NEUTRAL;
      const recency = this.recencyOf(chunk, now);
      const index = chunk.position?.index;
      const position = typeof index === 'number' && index >= 0 ? 1 / (1 + index) : NEUTRAL;
      const composite =
        weights.retrieval * retrieval +
        weights.keywordBoost * keywordBoost +
        weights.sourceQuality * sourceQuality +
        weights.recency * recency +
        weights.position * position;
      const item: ScoredChunk = {
        ...original,
        score: composite,
        scores: mergeScores(original.scores, { retrieval, keywordBoost, sourceQuality, recency, position, composite }),
      };
      return { item, original, terms };
    });
    ranked.sort(compareRanked);

    return this.config.diversityLambda === undefined ? this.select(ranked, limit) : this.selectDiverse(ranked, limit, this.config.diversityLambda);
  }

  private recencyOf(chunk: DocumentChunk, now: number): number {
    if (typeof chunk.timestamp !== 'number' || !Number.isFinite(chunk.timestamp)) return NEUTRAL;
    const ageDays = (now - chunk.timestamp) / DAY_MS;
    if (ageDays <= 0) return 1;
    return Math.pow(0.5, ageDays / this.config.recencyHalfLifeDays);
  }

  /** Best first, honouring the per-document cap and the limit. */
  private select(ranked: readonly Ranked[], limit: number): RankOutcome {
    const cap = this.config.maxPerDocument;
    const perDocument = new Map<string, number>();
    const out: ScoredChunk[] = [];
    const dropped: DroppedChunk[] = [];
    for (const { item } of ranked) {
      const docId = item.chunk.docId;
      const count = perDocument.get(docId) ?? 0;
      if (cap !== undefined && count >= cap) {
        dropped.push({ chunkId: item.chunk.id, reason: 'per_document_cap', detail: `document ${docId} already has ${cap} chunk(s)` });
      } else if (out.length >= limit) {
        dropped.push({ chunkId: item.chunk.id, reason: 'max_chunks', detail: `beyond maxChunks ${limit}` });
      } else {
        perDocument.set(docId, count + 1);
        out.push(item);
      }
    }
    return { ranked: out, dropped };
  }

  /**
   * Maximal marginal relevance: repeatedly picks the candidate maximising
   * λ · relevance − (1 − λ) · (largest similarity to an already picked chunk), where relevance is the
   * composite divided by the best composite. The value is recorded as `scores.mmr`.
   */
  private selectDiverse(ranked: readonly Ranked[], limit: number, lambda: number): RankOutcome {
    const cap = this.config.maxPerDocument;
    const best = ranked.length > 0 ? (ranked[0]?.item.scores.composite as number) : 0;
    const pool = ranked.map((entry) => ({ entry, maxSimilarity: 0 }));
    const perDocument = new Map<string, number>();
    const out: ScoredChunk[] = [];
    const dropped: DroppedChunk[] = [];
    while (pool.length > 0 && out.length < limit) {
      let pick = -1;
      let pickValue = -Infinity;
      for (let i = 0; i < pool.length; i++) {
        const candidate = pool[i] as (typeof pool)[number];
        if (cap !== undefined && (perDocument.get(candidate.entry.item.chunk.docId) ?? 0) >= cap) continue;
        const relevance = best > 0 ? (candidate.entry.item.scores.composite as number) / best : 1;
        const value = lambda * relevance - (1 - lambda) * candidate.maxSimilarity;
        // Strictly greater: on equal values the earlier candidate (better in ranking order) stays.
        if (pick < 0 || value > pickValue) {
          pick = i;
          pickValue = value;
        }
      }
      if (pick < 0) break;
      const [{ entry }] = pool.splice(pick, 1) as [(typeof pool)[number]];
      const item: ScoredChunk = { ...entry.item, scores: mergeScores(entry.item.scores, { mmr: pickValue }) };
      out.push(item);
      perDocument.set(item.chunk.docId, (perDocument.get(item.chunk.docId) ?? 0) + 1);
      for (const other of pool) {
        const similarity = this.similarity(entry, other.entry);
        if (similarity > other.maxSimilarity) other.maxSimilarity = similarity;
      }
    }
    for (const { entry } of pool) {
      const docId = entry.item.chunk.docId;
      if (cap !== undefined && (perDocument.get(docId) ?? 0) >= cap) {
        dropped.push({ chunkId: entry.item.chunk.id, reason: 'per_document_cap', detail: `document ${docId} already has ${cap} chunk(s)` });
      } else {
        dropped.push({ chunkId: entry.item.chunk.id, reason: 'max_chunks', detail: `beyond maxChunks ${limit}` });
      }
    }
    return { ranked: out, dropped };
  }

  private similarity(a: Ranked, b: Ranked): number {
    const left = a.item.chunk.embedding;
    const right = b.item.chunk.embedding;
    if (left && right && left.length === right.length && left.length > 0) return cosineSimilarity(left, right);
    return jaccard(a.terms ?? new Set(), b.terms ?? new Set());
  }
}
