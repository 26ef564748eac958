import { Analyzer, charCounter, isRightToLeft, truncateAtWordBoundary, defaultAnalyzer } from '@zerda/text';
import {
  invalidArgument,
  resolveConfigSection,
  validateEmbedding,
  type ComposeOptions,
  type ComposeResult,
  type ComposerConfig,
  type ContextComposer,
  type ContextEngineConfigInput,
  type ContextStats,
  type ContextTemplate,
  type DocumentChunk,
  type DroppedChunk,
  type Embedding,
  type LengthCounter,
  type QueryAnalysis,
  type ScoredChunk,
  type SentenceChoice,
  type TemplateName,
  type UsedChunk,
} from '@zerda/types';
import { emptyText, enforceBudget, fitInRankOrder, leftOut, type FitOutcome } from './rank-order-fit.js';
import { fitByValue, fitMeasures, type CandidateValues } from './value-fit.js';
import { Composition, type CompositionSetup } from './composition.js';
import { contextStats, countPassages, counterUnit } from './context-stats.js';
import { keptCharacters, renderGroup, wholeChunk, type Candidate, type FittedChunk, type Ordering } from './passages.js';
import { embeddingSimilarity } from './query-relevance.js';
import { keepRunsWhole } from './run-values.js';
import type { CompositionPolicy } from './composition-policy.js';
import { ChunkAnalysisCache, valueSentences, type SentenceModel, type ValuedSentence } from './sentence-value.js';
import { SENTENCE_MODEL } from './sentence-model.js';
import {
  ARABIC_LABELS,
  ENGLISH_LABELS,
  isTemplateName,
  resolveTemplate,
  TEMPLATE_NAMES,
  type TemplateLabels,
} from './templates.js';

/** The composer section of the configuration, as users write it (every field optional). */
export type ComposerConfigInput = NonNullable<NonNullable<ContextEngineConfigInput>['composer']>;

/** Construction options beyond the configuration section. */
export interface SmartContextComposerOptions {
  /**
   * Analyzer for sentence terms in query-focused compression. Use the one retrieval and query
   * analysis use, so that sentence terms and `analysis.keywords` match (default: `defaultAnalyzer`).
   */
  analyzer?: Analyzer;
  /** Labels printed by the built-in templates, overriding the English/Arabic defaults. */
  labels?: Partial<TemplateLabels>;
  /**
   * The sentence model that values sentences for query-focused compression (default: `SENTENCE_MODEL`,
   * fitted on the train splits of TyDi QA English and ARCD). Fit one on your own questions and
   * answers with `@zerda/bench`'s `fit-composer` to tune the composer to your corpus.
   */
  sentenceModel?: SentenceModel;
  /**
   * Characters of chunk text whose sentence analyses (sentences, terms, answer cues: query-independent)
   * the composer keeps between calls, least recently used forgotten first (default 8,000,000 —
   * about 3–4 bytes of memory per character, ~25–35 MB; `0` keeps none). A corpus whose candidates
   * fit in it is analysed once; a larger one pays the analysis (~0.1 ms per 1,500-character chunk)
   * for candidates not seen recently.
   */
  analysisCacheCharacters?: number;
  /** How a question's budget is split between lead packing and value, and how runs are kept whole (default {@link COMPOSITION_POLICY}). */
  policy?: Partial<CompositionPolicy>;
}

export type { CompositionPolicy } from './composition-policy.js';

/**
 * The default policy: every question's context keeps lead packing of 0.5 × budget verbatim when the
 * sentence model is unsure where the answer is, 0.15 × budget when it is confident (the floor by
 * construction, whole sentences), and the value fit replaces lead packing only when the sentence model
 * estimates it 0.03 more likely to hold the answer. Chosen on the train splits of ARCD and TyDi-en
 * (`tune-composer --choose --choose-styles`; see the README and BENCHMARKS.md).
 */
export const COMPOSITION_POLICY: Readonly<CompositionPolicy> = { share: 0.5, confidentShare: 0.15, confidence: 0.5, margin: 0.03, measure: 'presence', continuation: 0, bridge: 0.6, lead: 'sentences' };

/** Per-call options of {@link SmartContextComposer.compose}: the interface's options plus overrides of the configuration. */
export interface SmartComposeOptions extends ComposeOptions {
  /** Overrides `config.ordering` for this call. */
  ordering?: Ordering;
  /** Overrides `config.compression` for this call. */
  compression?: ComposerConfig['compression'];
}

/** A fit and, when sentences were valued, every candidate's valued sentences (for the explanation). */
interface ValuedFit extends FitOutcome {
  valued?: Map<Candidate, { values: CandidateValues; sentences: ValuedSentence[] }>;
}

/**
 * How strongly retrieval matched a candidate, for the sentence model's confidence features: the
 * fused hybrid score, else the BM25 score, else the vector similarity, else the ordering score.
 */
export function retrievalStrength(scored: ScoredChunk): number {
  const scores = scored.scores ?? {};
  const strength = scores.fused ?? scores.keyword ?? scores.vector ?? scored.score;
  return typeof strength === 'number' && Number.isFinite(strength) ? Math.max(0, strength) : 0;
}
const OPTION_KEYS: readonly string[] = ['analyzer', 'labels', 'sentenceModel', 'analysisCacheCharacters', 'policy'];
const ORDERINGS: readonly Ordering[] = ['rank', 'document', 'edges'];
const COMPRESSIONS: readonly ComposerConfig['compression'][] = ['auto', 'always', 'off'];

/** What getStats remembers of the last composition, to count chunks exactly for the context it returned. */
interface LastComposition {
  context: string;
  keptTexts: string[];
}

/**
 * How a query that asks no question (intent `other`: a claim to check, a keyword search) is
 * composed: it wants evidence, not a short answer, so every passage it gets is substantial and the
 * context spreads over more documents (see `composer.evidence`). Questions get neither. A keyword
 * search (complexity `simple`: one short clause) also keeps lead packing as its floor, as a question
 * does (`floor`, read by `#fit`); a longer claim does not.
 */
function evidenceSetup(analysis: QueryAnalysis | undefined, budget: number, config: ComposerConfig['evidence']): CompositionSetup['evidence'] {
  if (analysis?.intent !== 'other' || (config.minChunkShare === 0 && config.spread === 1)) return undefined;
  return { minChunkUnits: config.minChunkShare * budget, spread: config.spread, floor: analysis.complexity === 'simple' };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function checkBudget(value: unknown, field: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw invalidArgument(field, 'a number >= 0 (the maximum context length in the counter unit)', value);
  }
  return value;
}

function checkCounter(value: unknown, field: string): LengthCounter {
  if (value === undefined) return charCounter;
  if (typeof value !== 'function') throw invalidArgument(field, 'a function (text) => number', value);
  return value as LengthCounter;
}

function checkChunks(value: unknown): Candidate[] {
  if (!Array.isArray(value)) throw invalidArgument('chunks', 'an array of scored chunks ({ chunk, score, scores })', value);
  return value.map((scored: unknown, index): Candidate => {
    const field = `chunks[${index}]`;
    if (!isObject(scored) || !isObject(scored.chunk)) throw invalidArgument(`${field}.chunk`, 'a document chunk object', isObject(scored) ? scored.chunk : scored);
    const chunk = scored.chunk;
    if (typeof chunk.text !== 'string') throw invalidArgument(`${field}.chunk.text`, 'a string', chunk.text);
    if (typeof chunk.id !== 'string') throw invalidArgument(`${field}.chunk.id`, 'a string', chunk.id);
    if (chunk.docId !== undefined && typeof chunk.docId !== 'string') throw invalidArgument(`${field}.chunk.docId`, 'a string', chunk.docId);
    if (chunk.source !== undefined && typeof chunk.source !== 'string') throw invalidArgument(`${field}.chunk.source`, 'a string', chunk.source);
    const position = isObject(chunk.position) ? chunk.position : {};
    if (position.index !== undefined && (typeof position.index !== 'number' || !Number.isFinite(position.index))) {
      throw invalidArgument(`${field}.chunk.position.index`, 'a finite number', position.index);
    }
    // Hand-built chunks may lack fields the types require; the composer only reads these with defaults.
    const docId = (chunk.docId as string | undefined) ?? chunk.id;
    const normalized: DocumentChunk = {
      ...(chunk as unknown as DocumentChunk),
      docId,
      source: (chunk.source as string | undefined) ?? docId,
      position: { ...(position as object), index: (position.index as number | undefined) ?? index } as DocumentChunk['position'],
    };
    return { scored: scored as unknown as ScoredChunk, chunk: normalized, rank: index + 1 };
  });
}

function checkAnalysis(value: unknown): QueryAnalysis | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw invalidArgument('options.analysis', 'a query analysis object', value);
  if (value.keywords !== undefined && (!Array.isArray(value.keywords) || value.keywords.some((term) => typeof term !== 'string'))) {
    throw invalidArgument('options.analysis.keywords', 'an array of strings', value.keywords);
  }
  return value as unknown as QueryAnalysis;
}

function checkTemplate(value: unknown, fallback: TemplateName): TemplateName | ContextTemplate {
  if (value === undefined) return fallback;
  if (typeof value === 'function' || isTemplateName(value)) return value as TemplateName | ContextTemplate;
  throw invalidArgument('options.template', `one of ${TEMPLATE_NAMES.map((name) => `"${name}"`).join(', ')} or a template function`, value);
}

function checkSentenceModel(value: unknown): SentenceModel {
  if (value === undefined) return SENTENCE_MODEL;
  if (!isObject(value) || !isObject(value.weights)) throw invalidArgument('options.sentenceModel', 'a sentence model { weights: { feature: number } }', value);
  for (const [name, weight] of Object.entries(value.weights)) {
    if (typeof weight !== 'number' || !Number.isFinite(weight)) throw invalidArgument(`options.sentenceModel.weights.${name}`, 'a finite number', weight);
  }
  return { weights: { ...(value.weights as Record<string, number>) } };
}

function checkCompositionPolicy(value: unknown): CompositionPolicy {
  if (value === undefined) return COMPOSITION_POLICY;
  if (!isObject(value)) throw invalidArgument('options.policy', 'a composition policy object (see COMPOSITION_POLICY)', value);
  const policy: CompositionPolicy = { ...COMPOSITION_POLICY };
  for (const key of Object.keys(value)) {
    if (!(key in COMPOSITION_POLICY)) throw invalidArgument(`options.policy.${key}`, `no such field (known: ${Object.keys(COMPOSITION_POLICY).join(', ')})`, value[key]);
    const field = value[key];
    if (key === 'measure') {
      if (field !== 'presence' && field !== 'sum') throw invalidArgument('options.policy.measure', '"presence" or "sum"', field);
      policy.measure = field;
      continue;
    }
    if (key === 'lead') {
      if (field !== 'sentences' && field !== 'words') throw invalidArgument('options.policy.lead', '"sentences" or "words"', field);
      policy.lead = field;
      continue;
    }
    if (typeof field !== 'number' || !(field >= 0 && field <= 1)) throw invalidArgument(`options.policy.${key}`, 'a number in [0, 1]', field);
    (policy as unknown as Record<string, number>)[key] = field;
  }
  return policy;
}

function checkChoice<T extends string>(value: unknown, choices: readonly T[], field: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw invalidArgument(field, `one of ${choices.map((choice) => `"${choice}"`).join(', ')}`, value);
}

/** Every sentence of a used chunk with what the context keeps of it, its value and the reasons. */
function sentenceChoices(fitted: FittedChunk, values: CandidateValues, valued: readonly ValuedSentence[]): SentenceChoice[] {
  // Sentences are in text order, and so are the kept spans once sorted by start: one sweep finds each
  // sentence's overlap (a span ending before a sentence starts ends before every later one too).
  const spans = [...fitted.spans].sort((a, b) => a.start - b.start);
  let first = 0;
  return values.sentences.map((sentence, index) => {
    while (first < spans.length && spans[first]!.end <= sentence.start) first += 1;
    let kept = 0;
    for (let span = first; span < spans.length && spans[span]!.start < sentence.end; span++) {
      kept += Math.max(0, Math.min(spans[span]!.end, sentence.end) - Math.max(spans[span]!.start, sentence.start));
    }
    const length = sentence.end - sentence.start;
    const verdict = valued[index]!;
    return {
      start: sentence.start,
      end: sentence.end,
      kept: kept >= length ? 'whole' : kept > 0 ? 'prefix' : 'none',
      value: values.values[index]!,
      terms: verdict.terms,
      reasons: verdict.reasons,
    };
  });
}

/**
 * The default {@link ContextComposer}: turns ranked chunks into the context a model reads, never
 * longer than the budget under the caller's length counter (characters, words, tokens or any
 * function: the final string is measured, and chunks are dropped until it fits — the result is ''
 * only when nothing fits). Chunks are kept whole by rank while everything fits; when not, and the
 * query is known, each chunk keeps the sentences that matter most for the query (so more relevant
 * chunks share the budget); without a query, the first chunk that does not fit is cut at a
 * sentence or word boundary. Templates, ordering and labels follow the configuration; Arabic queries
 * get Arabic labels and right-to-left text is never reordered or marked up.
 */
export class SmartContextComposer implements ContextComposer {
  /** The resolved composer configuration. */
  readonly config: ComposerConfig;
  readonly #analyzer: Analyzer;
  readonly #labels: Partial<TemplateLabels>;
  readonly #model: SentenceModel;
  readonly #policy: CompositionPolicy;
  readonly #chunkAnalyses: ChunkAnalysisCache;
  #last: LastComposition | undefined;

  constructor(config: ComposerConfigInput | ComposerConfig = {}, options: SmartContextComposerOptions = {}) {
    this.config = resolveConfigSection('composer', config);
    if (!isObject(options)) throw invalidArgument('options', 'an options object', options);
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.includes(key)) throw invalidArgument(`options.${key}`, `no such option (known: ${OPTION_KEYS.join(', ')})`, (options as Record<string, unknown>)[key]);
    }
    if (options.analyzer !== undefined && !(options.analyzer instanceof Analyzer)) {
      throw invalidArgument('options.analyzer', 'an Analyzer from @zerda/text', options.analyzer);
    }
    this.#analyzer = options.analyzer ?? defaultAnalyzer;
    if (options.labels !== undefined && !isObject(options.labels)) throw invalidArgument('options.labels', 'an object of labels', options.labels);
    this.#labels = { ...options.labels };
    this.#model = checkSentenceModel(options.sentenceModel);
    this.#policy = checkCompositionPolicy(options.policy);
    const characters: unknown = options.analysisCacheCharacters;
    if (characters !== undefined && !(typeof characters === 'number' && Number.isInteger(characters) && characters >= 0)) {
      throw invalidArgument('options.analysisCacheCharacters', 'an integer >= 0 (characters of chunk text; 0 keeps no analysis)', characters);
    }
    this.#chunkAnalyses = new ChunkAnalysisCache(this.#analyzer, characters);
  }

  /**
   * Composes the context for `chunks` (best first) within `options.budget`. Chunks whose text is
   * empty are skipped; every other chunk is either used (with the text kept, how much, and how it
   * was fitted) or reported in `skipped` with the reason.
   */
  compose(chunks: ScoredChunk[], options: SmartComposeOptions): ComposeResult {
    if (!isObject(options)) throw invalidArgument('options', 'an options object with a budget', options);
    const candidates = checkChunks(chunks);
    const budget = checkBudget(options.budget ?? this.config.maxContextLength, 'options.budget');
    const counter = checkCounter(options.counter, 'options.counter');
    const analysis = checkAnalysis(options.analysis);
    const template = resolveTemplate(checkTemplate(options.template, this.config.template));
    const ordering = checkChoice(options.ordering, ORDERINGS, 'options.ordering', this.config.ordering);
    const compression = checkChoice(options.compression, COMPRESSIONS, 'options.compression', this.config.compression);
    const queryEmbedding = options.queryEmbedding === undefined ? undefined : validateEmbedding(options.queryEmbedding, 'options.queryEmbedding');

    const evidence = evidenceSetup(analysis, budget, this.config.evidence);
    const composition = new Composition({
      candidates,
      budget,
      counter,
      template,
      templateContext: {
        ...(analysis ? { analysis } : {}),
        rtl: this.#isRightToLeft(analysis, candidates),
        labels: this.#labelsFor(analysis),
        separator: this.config.separator,
      },
      ordering,
      gapMarker: this.config.gapMarker,
      minChunkLength: this.config.minChunkLength,
      ...(evidence ? { evidence } : {}),
    });

    const fit = this.#fit(composition, compression, analysis, queryEmbedding);
    return this.#result(composition, { ...enforceBudget(composition, fit), ...(fit.valued ? { valued: fit.valued } : {}) });
  }

  /** Cuts `text` to at most `budget` counter units at a word boundary, with an ellipsis when cut (the shared `truncateAtWordBoundary`). */
  truncate(text: string, budget: number, counter?: LengthCounter): string {
    if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
    return truncateAtWordBoundary(text, checkBudget(budget, 'budget'), checkCounter(counter, 'counter'));
  }

  /**
   * Statistics of a context: its length in the counter's unit and in characters, its chunk count,
   * average chunk length, script mix and budget utilization. For the context this composer returned
   * last, the chunk count and average are exact (from the kept chunk texts); for any other string
   * they are counted from the marks of `options.template` (default: the configured template; see
   * `countPassages`) and averaged over the whole context.
   */
  getStats(context: string, options: { counter?: LengthCounter; budget?: number; template?: TemplateName } = {}): ContextStats {
    if (typeof context !== 'string') throw invalidArgument('context', 'a string', context);
    if (!isObject(options)) throw invalidArgument('options', 'an options object', options);
    const counter = checkCounter(options.counter, 'options.counter');
    const budget = options.budget === undefined ? undefined : checkBudget(options.budget, 'options.budget');
    const template = checkChoice(options.template, TEMPLATE_NAMES, 'options.template', this.config.template);
    const measure = (text: string) => {
      const value: unknown = counter(text);
      if (typeof value !== 'number' || Number.isNaN(value)) throw invalidArgument('options.counter', 'a function returning a number', value);
      return value;
    };
    const last = this.#last;
    const known = last && last.context === context ? last : undefined;
    return contextStats(context, measure, counterUnit(counter), {
      ...(budget === undefined ? {} : { budget }),
      ...(known
        ? { chunkTexts: known.keptTexts }
        : { chunkCount: countPassages(context, template, this.config.separator) }),
    });
  }

  #labelsFor(analysis: QueryAnalysis | undefined): TemplateLabels {
    const base = analysis?.language === 'ar' ? ARABIC_LABELS : ENGLISH_LABELS;
    return { ...base, ...this.#labels };
  }

  #isRightToLeft(analysis: QueryAnalysis | undefined, candidates: readonly Candidate[]): boolean {
    if (analysis?.language) return analysis.language === 'ar';
    return candidates.length > 0 && isRightToLeft(candidates.map((candidate) => candidate.chunk.text.slice(0, 2000)).join('\n'));
  }

  #queryTerms(analysis: QueryAnalysis | undefined): string[] {
    if (!analysis) return [];
    const keywords = analysis.keywords ?? [];
    if (keywords.length > 0) return [...new Set(keywords)];
    const text = analysis.effectiveQuery || analysis.query;
    return typeof text === 'string' ? [...new Set(this.#analyzer.analyze(text))] : [];
  }

  #fit(composition: Composition, compression: ComposerConfig['compression'], analysis: QueryAnalysis | undefined, queryEmbedding: Embedding | undefined): ValuedFit {
    const { candidates } = composition.setup;
    // A budget of 0 holds nothing but '': no chunk needs measuring or valuing (a huge one would cost seconds).
    if (composition.setup.budget === 0) return { fitted: [], skipped: candidates.map((candidate) => (candidate.chunk.text.trim() === '' ? emptyText(candidate) : leftOut(candidate))) };
    const usable = candidates.filter((candidate) => candidate.chunk.text.trim() !== '');
    if (compression !== 'always') {
      const everything = usable.map(wholeChunk);
      if (composition.fits(everything)) {
        const skipped: DroppedChunk[] = candidates
          .filter((candidate) => !usable.includes(candidate))
          .map((candidate) => ({ chunkId: candidate.chunk.id, reason: 'empty', detail: 'the chunk text is empty or whitespace' }));
        return { fitted: everything, skipped };
      }
    }
    const terms = this.#queryTerms(analysis);
    const similarities = candidates.map((candidate) => embeddingSimilarity(queryEmbedding, candidate.chunk.embedding));
    const hasSignal = terms.length > 0 || similarities.some((similarity) => similarity !== undefined);
    if (compression === 'off' || !hasSignal) return fitInRankOrder(composition);
    const analyses = candidates.map((candidate) => this.#chunkAnalyses.get(candidate.chunk.text));
    const sentences = analyses.map((chunk) => chunk.sentences);
    const valued = valueSentences(
      candidates.map((candidate, index) => ({ analysis: analyses[index]!, rank: candidate.rank, strength: retrievalStrength(candidate.scored), ...(candidate.chunk.title ? { title: candidate.chunk.title } : {}) })),
      analysis,
      terms,
      this.#analyzer,
      this.#model,
    );
    const valuedOf = new Map<Candidate, { values: CandidateValues; sentences: ValuedSentence[] }>();
    const values: CandidateValues[] = candidates.map((candidate, index) => {
      const similarity = similarities[index];
      // A known embedding similarity scales the whole chunk (the sentence model was fitted without one).
      const embeddingWeight = similarity === undefined ? 1 : 0.5 + 0.5 * Math.max(0, Math.min(1, similarity));
      const sentenceValues = valued[index]!;
      const entry: CandidateValues = { sentences: sentences[index]!, values: keepRunsWhole(sentenceValues.map((sentence) => sentence.value * embeddingWeight), analyses[index]!.pieceIndex, this.#policy) };
      if (compression === 'always') {
        // Only sentences with query terms are candidates, or the opening when none has any.
        const matching = sentenceValues.map((sentence) => sentence.terms.length > 0);
        entry.eligible = matching.some(Boolean) ? matching : matching.map((_, position) => position === 0);
      }
      valuedOf.set(candidate, { values: entry, sentences: sentenceValues });
      return entry;
    });
    const leadUnits = composition.setup.evidence ? 0 : this.#policyShare(values) * composition.setup.budget;
    let byValue: ValuedFit = { ...fitByValue(composition, values, { leadUnits, lead: this.#policy.lead }), valued: valuedOf };
    const valuesOf = new Map([...valuedOf].map(([candidate, entry]) => [candidate, entry.values]));
    // Greedy by value per unit can fill a tight budget with short sentences worth less than one long
    // sentence that would have fitted: the fit that takes the sentence worth most first is the other
    // candidate (together the classic greedy knapsack's guarantee), kept when it holds the answer more likely.
    // Measured only when there are two fits to choose from, or below when lead packing is weighed against it.
    const byBest = composition.setup.evidence ? undefined : fitByValue(composition, values, { leadUnits, lead: this.#policy.lead, first: 'value' });
    let valueMeasure: ReturnType<typeof fitMeasures> | undefined;
    if (byBest) {
      valueMeasure = fitMeasures(byValue.fitted, valuesOf);
      const bestMeasure = fitMeasures(byBest.fitted, valuesOf);
      if (bestMeasure.presence > valueMeasure.presence) {
        byValue = { ...byBest, valued: valuedOf };
        valueMeasure = bestMeasure;
      }
    }
    if (compression === 'always') return byValue;
    // A claim's evidence is spread over documents on purpose: rank order would hand the budget to the
    // first (it stays the fallback when the value fit holds nothing, as at a budget below one sentence).
    // A keyword search keeps lead packing as its floor, like a question (`evidence.floor`, see `evidenceSetup`).
    if (composition.setup.evidence && !composition.setup.evidence.floor && byValue.fitted.length > 0) return byValue;
    // Rank order (whole chunks, the first that does not fit cut at a word boundary) is the other
    // sensible fit, and what naive packing does — it keeps everything naive packing of the same ranking
    // keeps (a sentence-boundary cut, readable, could keep half of it); keep whichever holds more value
    // by the same measure.
    const byRank = fitInRankOrder(composition, 'word');
    // The value fit must hold the answer more likely than lead packing by `margin`: where the model
    // cannot tell sentences apart, the two are close and lead packing — the floor — is kept.
    const rankMeasure = fitMeasures(byRank.fitted, valuesOf);
    valueMeasure ??= fitMeasures(byValue.fitted, valuesOf);
    const useValue = this.#policy.measure === 'sum' ? valueMeasure.sum >= rankMeasure.sum + this.#policy.margin : valueMeasure.presence >= rankMeasure.presence + this.#policy.margin;
    return useValue ? byValue : { ...byRank, valued: valuedOf };
  }

  /**
   * The share of the budget kept for the lead (see `CompositionPolicy`): `confidentShare` when the sentence
   * model is confident where the answer is (its best sentence is worth at least `confidence`), else `share`.
   */
  #policyShare(values: readonly CandidateValues[]): number {
    let best = 0;
    for (const entry of values) for (const value of entry.values) if (value > best) best = value;
    return best >= this.#policy.confidence ? this.#policy.confidentShare : this.#policy.share;
  }

  #result(composition: Composition, outcome: ValuedFit): ComposeResult {
    const { template, gapMarker, budget, counter } = composition.setup;
    const { context, passages } = composition.render(outcome.fitted);
    const numberOf = new Map<DocumentChunk, number>();
    for (const passage of passages) for (const chunk of passage.chunks) numberOf.set(chunk, passage.number);
    // Context order: by passage, and within a merged passage in reading order.
    const ordered = [...outcome.fitted].sort(
      (a, b) =>
        (numberOf.get(a.candidate.chunk) ?? 0) - (numberOf.get(b.candidate.chunk) ?? 0) ||
        a.candidate.chunk.position.index - b.candidate.chunk.position.index ||
        a.candidate.rank - b.candidate.rank,
    );
    const used: UsedChunk[] = ordered.map((fitted) => {
      const total = charCounter(fitted.candidate.chunk.text);
      const usedChunk: UsedChunk = {
        ...fitted.candidate.scored,
        keptText: renderGroup([fitted], gapMarker),
        keptRatio: total === 0 ? 1 : keptCharacters(fitted) / total,
        fit: fitted.fit,
        rank: fitted.candidate.rank,
      };
      const number = numberOf.get(fitted.candidate.chunk);
      if (template.numbered && number !== undefined) usedChunk.citation = number;
      const valued = outcome.valued?.get(fitted.candidate);
      if (valued) usedChunk.sentences = sentenceChoices(fitted, valued.values, valued.sentences);
      return usedChunk;
    });
    const truncated = used.some((chunk) => chunk.fit !== 'whole') || outcome.skipped.some((skip) => skip.reason !== 'empty');
    const keptTexts = used.map((chunk) => chunk.keptText);
    this.#last = { context, keptTexts };
    const stats = contextStats(context, (text) => composition.measure(text), counterUnit(counter), { budget, chunkTexts: keptTexts });
    return { context, chunks: used, skipped: outcome.skipped, truncated, template: template.name, stats };
  }
}
