import * as z from 'zod';
import { invalidArgument } from './errors.js';
import { parseOrThrow } from './validation.js';

const unit = z.number().min(0).max(1);
const positiveInt = z.number().int().positive();
const nonNegative = z.number().min(0);

const complexityTable = <T extends z.ZodType>(value: T, defaults: { simple: number; moderate: number; complex: number }) =>
  z.strictObject({ simple: value.default(defaults.simple as never), moderate: value.default(defaults.moderate as never), complex: value.default(defaults.complex as never) }).prefault({});

/** Query analysis: how complexity maps to a budget and a chunk count. */
export const analyzerConfigSchema = z
  .strictObject({
    /** Suggested context budget per complexity, in the length counter's unit. */
    budgets: complexityTable(positiveInt, { simple: 1500, moderate: 3000, complex: 5000 }),
    /**
     * Suggested number of chunks per complexity: how many ranked chunks the composer may draw on
     * (it keeps only what is worth the budget). 10 for every complexity: on the train splits of
     * TyDi QA and ARCD, capping simple questions at 3 left the answer out of reach at larger budgets.
     */
    chunks: complexityTable(positiveInt, { simple: 10, moderate: 10, complex: 10 }),
    /** Word count from which a query is at least moderate / complex. */
    moderateWords: positiveInt.default(8),
    complexWords: positiveInt.default(20),
    /**
     * Longest query accepted, in characters (Unicode code points). A longer one is refused with a
     * ZerdaError (`ZERDA_INVALID_ARGUMENT`) before any stage sees it: a query is a question, not a
     * document, and every stage's cost grows with it.
     */
    maxQueryLength: positiveInt.default(32_768),
  })
  .prefault({});

/** Retrieval: depth and hybrid fusion. */
export const retrievalConfigSchema = z
  .strictObject({
    /** Candidates retrieved before filtering and ranking. */
    topK: positiveInt.max(10_000).default(30),
    /**
     * How the hybrid retriever fuses sub-retrievers: normalised weighted scores (default) or
     * reciprocal rank fusion. Measured on BEIR SciFact with the offline GloVe model, weighted fusion
     * with a light vector weight is the only setting that does not fall below BM25 alone (0.699 vs
     * 0.695 nDCG@10 at vector weight 0.15; RRF 1:1 gives 0.47). The weight was chosen on that test
     * set, so read the gain as optimistic. With a strong embedding model, raise `weights.vector`
     * (e.g. to 1) or use `'rrf'`.
     */
    fusion: z.enum(['rrf', 'weighted']).default('weighted'),
    /** RRF constant k (score = weight / (k + rank)). */
    rrfK: positiveInt.default(60),
    /** Weight per sub-retriever, by name (a retriever not listed weighs 1). */
    weights: z.record(z.string(), nonNegative).default({ vector: 0.15, keyword: 1 }),
    /** Candidates each sub-retriever returns before fusion, as a multiple of topK. */
    candidateMultiplier: z.number().min(1).max(100).default(2),
    /** Okapi BM25 parameters of the keyword index. */
    bm25: z
      .strictObject({
        // Robertson's classic defaults (also Lucene's). Not tuned on our evaluation sets; they beat
        // the Anserini setting (0.9 / 0.4) on both SciFact (0.695 vs 0.685) and ARCD (0.840 vs 0.824).
        k1: nonNegative.default(1.2),
        b: unit.default(0.75),
        /** Weight of a term occurrence in the title relative to the text. */
        titleWeight: nonNegative.default(1),
      })
      .prefault({}),
  })
  .prefault({});

/** Filtering: duplicates, near-duplicates, noise, length bounds. */
export const filterConfigSchema = z
  .strictObject({
    /** Drop exact duplicates (normalised content hash), keeping the best-scored copy. */
    exactDuplicates: z.boolean().default(true),
    /** Drop near-duplicates whose estimated Jaccard similarity of word shingles reaches `threshold`. */
    nearDuplicates: z
      .strictObject({
        enabled: z.boolean().default(true),
        threshold: unit.default(0.8),
        shingleSize: positiveInt.max(10).default(3),
        permutations: positiveInt.max(1024).default(128),
      })
      .prefault({}),
    /** Drop chunks that look like noise (mostly digits, URLs, punctuation, repeated characters). */
    noise: z.boolean().default(true),
    /** Minimum share of letters among non-space characters for a chunk not to be noise. */
    minLetterRatio: unit.default(0.4),
    minLength: z.number().int().nonnegative().default(20),
    maxLength: positiveInt.default(100_000),
    /** Drop candidates whose score is below this (undefined: keep all). */
    minScore: z.number().optional(),
  })
  .prefault({});

/** Ranking: the weights of the composite score and the options around it. */
export const rankingConfigSchema = z
  .strictObject({
    // The keyword boost moved correct top passages below weaker ones, so it weighs 0 by default and
    // its 0.2 went to retrieval. Chosen on the train splits of ARCD and TyDi QA English (answer-in-
    // context against naive packing of the BM25 top 10, the policy score of BENCHMARKS.md, issue 33
    // fifth pass): boost 0 → 0.2849, 0.1 → 0.2857 (a tie: within a few questions; ahead on two sets,
    // level on two, behind on two), 0.2 → 0.2518; first measured on the held-out splits (−0.3 to −0.7
    // points at 500–2,000 characters with 0.2), which agree. Source quality, recency and position act only on
    // metadata those sets lack (see @zerda/context-core's README).
    weights: z
      .strictObject({
        retrieval: nonNegative.default(0.8),
        keywordBoost: nonNegative.default(0),
        sourceQuality: nonNegative.default(0.1),
        recency: nonNegative.default(0.05),
        position: nonNegative.default(0.05),
      })
      .prefault({}),
    /** Half-life of recency decay in days. */
    recencyHalfLifeDays: z.number().positive().default(365),
    /** At most this many chunks from one document (undefined: no cap). */
    maxPerDocument: positiveInt.optional(),
    /** MMR diversity: 1 = pure relevance, lower values trade relevance for novelty (undefined: off). */
    diversityLambda: unit.optional(),
  })
  .prefault({});

export const templateNameSchema = z.enum(['default', 'numbered', 'markdown', 'xml', 'citations']);
export type TemplateName = z.infer<typeof templateNameSchema>;

/** Reranking: how many ranked candidates an engine's reranker (when one is given) sees. */
export const rerankConfigSchema = z
  .strictObject({
    /**
     * The ranker passes at most this many of its best candidates to the reranker (or `maxChunks`,
     * when larger), and the reranker keeps the best `maxChunks` of them. More candidates give the
     * reranker more to recover from the first ranking, at the cost of one model call per candidate.
     */
    candidates: positiveInt.max(1000).default(20),
  })
  .prefault({});

/** Composition: the budget, the template and how chunks are fitted. */
export const composerConfigSchema = z
  .strictObject({
    /** Default and maximum context length, in the length counter's unit. */
    maxContextLength: positiveInt.default(4000),
    template: templateNameSchema.default('default'),
    /** Separator between chunks for the default template. */
    separator: z.string().default('\n\n---\n\n'),
    /** Chunk order in the context: by rank, in reading order per document, or best chunks at both ends. */
    ordering: z.enum(['rank', 'document', 'edges']).default('rank'),
    /** Query-focused compression: when a chunk does not fit whole (`auto`), always, or never. */
    compression: z.enum(['auto', 'always', 'off']).default('auto'),
    /** A chunk whose kept text would be shorter than this (characters) is skipped, not included as a stub. */
    minChunkLength: z.number().int().nonnegative().default(50),
    /**
     * A query that asks no question (no question word: a claim to check, a keyword search) wants
     * evidence rather than a short answer: every chunk its context uses keeps at least
     * `minChunkShare` of the budget (a few substantial passages, not many snippets), and each further
     * sentence of a chunk already used is worth `spread` times less per sentence it keeps (so the
     * context spreads over more documents). `{ minChunkShare: 0, spread: 1 }` composes such queries
     * like questions.
     */
    evidence: z
      .strictObject({
        minChunkShare: z.number().min(0).max(1).default(0.1),
        spread: z.number().gt(0).max(1).default(0.9),
      })
      .prefault({}),
    /** Marker placed where compression removed sentences. */
    gapMarker: z.string().default(' […] '),
    /**
     * Small-to-big: when the context leaves budget unused, the engine adds up to this many
     * neighbouring chunks on each side of every chunk it uses (same document, by `position.index`,
     * from a retriever that can look them up) and composes again. 0 (default): off. For chunked
     * corpora; `ordering: 'document'` joins a chunk and its neighbours into one passage.
     */
    neighbors: z.number().int().min(0).max(10).default(0),
  })
  .prefault({});

/** Guard: checks on the composed context. */
export const guardConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Warn when the best chunk's normalised relevance is below this. */
    minRelevance: unit.default(0.05),
    /** Prompt-injection text in retrieved chunks: flag it, redact it, or ignore it. */
    injection: z.enum(['flag', 'redact', 'off']).default('flag'),
    /** Warn when an Arabic query gets no Arabic context (and vice versa for English). */
    languageMismatch: z.boolean().default(true),
  })
  .prefault({});

export const cacheConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    maxEntries: positiveInt.default(256),
    ttlMs: positiveInt.default(5 * 60_000),
  })
  .prefault({});

export const multiTurnConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    maxTurns: positiveInt.default(20),
    /** Recent turns used to enrich a follow-up query. */
    enrichTurns: z.number().int().nonnegative().default(2),
    /** Live conversations an engine keeps (`run(q, { conversation })`); the least recently used is forgotten first. */
    maxConversations: positiveInt.default(1000),
    /** A conversation idle this long (ms) is forgotten. */
    conversationTtlMs: positiveInt.default(30 * 60_000),
  })
  .prefault({});

export const adaptiveConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    windowSize: positiveInt.default(200),
    /** When the share of empty contexts in the window exceeds this, retrieval depth widens. */
    emptyContextRate: unit.default(0.3),
    /** Largest multiple of the configured topK the adaptation may reach. */
    maxDepthMultiplier: z.number().min(1).max(10).default(3),
  })
  .prefault({});

export const budgetConfigSchema = z
  .strictObject({
    /** Smallest share any query of a multi-query run gets, in the counter's unit. */
    minPerQuery: z.number().int().nonnegative().default(200),
  })
  .prefault({});

/** The whole engine configuration. Every section and field is optional; defaults are documented per field. */
export const contextEngineConfigSchema = z
  .strictObject({
    analyzer: analyzerConfigSchema,
    retrieval: retrievalConfigSchema,
    filter: filterConfigSchema,
    ranking: rankingConfigSchema,
    rerank: rerankConfigSchema,
    composer: composerConfigSchema,
    guard: guardConfigSchema,
    cache: cacheConfigSchema,
    multiTurn: multiTurnConfigSchema,
    adaptive: adaptiveConfigSchema,
    budget: budgetConfigSchema,
  })
  .prefault({});

/** The resolved configuration (every default filled in). */
export type ContextEngineConfig = z.output<typeof contextEngineConfigSchema>;
/** What users pass: any subset of the configuration. */
export type ContextEngineConfigInput = z.input<typeof contextEngineConfigSchema>;

export type AnalyzerConfig = ContextEngineConfig['analyzer'];
export type RetrievalConfig = ContextEngineConfig['retrieval'];
export type FilterConfig = ContextEngineConfig['filter'];
export type RankingConfig = ContextEngineConfig['ranking'];
export type RerankConfig = ContextEngineConfig['rerank'];
export type ComposerConfig = ContextEngineConfig['composer'];
export type GuardConfig = ContextEngineConfig['guard'];
export type CacheConfig = ContextEngineConfig['cache'];
export type MultiTurnConfig = ContextEngineConfig['multiTurn'];
export type AdaptiveConfig = ContextEngineConfig['adaptive'];
export type BudgetConfig = ContextEngineConfig['budget'];

/**
 * Validates a (partial) configuration and fills every default. Unknown keys, wrong types and
 * out-of-range values throw a ZerdaError (`ZERDA_INVALID_CONFIG`) naming the field, e.g.
 * `config.cache.ttlMs must be >= 0, got number -1`.
 */
export function resolveConfig(input: unknown = {}): ContextEngineConfig {
  return parseOrThrow(contextEngineConfigSchema, input ?? {}, 'config', 'ZERDA_INVALID_CONFIG');
}

/** Resolves one section on its own, for strategies used outside the engine. */
export function resolveConfigSection<K extends keyof ContextEngineConfig>(section: K, input: unknown = {}): ContextEngineConfig[K] {
  const shape = contextEngineConfigSchema.unwrap().shape;
  if (typeof section !== 'string' || !Object.prototype.hasOwnProperty.call(shape, section)) {
    throw invalidArgument('section', `a configuration section (one of ${Object.keys(shape).join(', ')})`, section);
  }
  const schema = shape[section] as unknown as z.ZodType<ContextEngineConfig[K]>;
  return parseOrThrow(schema, input ?? {}, `config.${section}`, 'ZERDA_INVALID_CONFIG');
}
