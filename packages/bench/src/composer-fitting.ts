/**
 * What fitting and tuning the composer share (`fit-composer`, `tune-composer`): the engine's
 * candidates captured per question, the sentence rows a sentence model is fitted on, and a model
 * fitted on chosen datasets — every dataset weighing the same.
 */
import { SmartContextComposer, analyzeChunk, featureRecord, retrievalStrength, sentenceFeatures, type SentenceModel } from '@zerda/composer';
import type { ContextEngine as ContextEngineType } from '@zerda/context';
import { answerInContext } from '@zerda/retriever';
import { defaultAnalyzer } from '@zerda/text';
import type { ComposeOptions, LengthCounter, QueryAnalysis, ScoredChunk } from '@zerda/types';
import type { BenchDataset } from './datasets.js';
import { ENGINE_BENCH_CONFIG } from './jobs.js';
import { fitLogistic } from './logistic.js';
import { documentsToChunks } from './systems/zerda-systems.js';

/** What the engine handed its composer for one question. */
export interface Captured {
  ranked: ScoredChunk[];
  analysis: QueryAnalysis | undefined;
}

/** The composer an engine is given (anything with the composer's three methods). */
export type ComposerLike = Pick<SmartContextComposer, 'compose' | 'truncate' | 'getStats'>;

/** A ContextEngine with the bench's configuration plus `extraConfig`, the given composer and counter. */
export async function benchEngine(composer: ComposerLike, extraConfig: Record<string, unknown> = {}, counter?: LengthCounter): Promise<ContextEngineType> {
  const { ContextEngine } = await import('@zerda/context');
  return new ContextEngine({ config: { ...ENGINE_BENCH_CONFIG, ...extraConfig }, composer, ...(counter ? { lengthCounter: counter } : {}) });
}

/**
 * Runs every query through the engine up to composition and keeps what the composer received
 * (the ranked candidates and the analysis); `maxChunks` widens the candidate list.
 */
export async function captureCandidates(dataset: BenchDataset, queries: BenchDataset['queries'], extraConfig: Record<string, unknown> = {}, maxChunks?: number): Promise<Map<string, Captured>> {
  const inner = new SmartContextComposer((extraConfig.composer ?? {}) as ConstructorParameters<typeof SmartContextComposer>[0]);
  const captured = new Map<string, Captured>();
  let current = '';
  const engine = await benchEngine(
    {
      compose: (chunks: ScoredChunk[], options: ComposeOptions) => {
        captured.set(current, { ranked: chunks, analysis: options.analysis });
        return inner.compose(chunks, { ...options, budget: 0 });
      },
      truncate: inner.truncate.bind(inner),
      getStats: inner.getStats.bind(inner),
    },
    extraConfig,
  );
  await engine.index(documentsToChunks(dataset.documents));
  for (const query of queries) {
    current = query.id;
    await engine.run(query.text, { useHistory: false, recordTurn: false, ...(maxChunks ? { maxChunks } : {}) });
  }
  return captured;
}

/**
 * One row per sentence of every candidate: the composer's own features and a label — does the
 * sentence hold a gold answer (`answers`), or, for a dataset without answers (claims), does it
 * belong to a document judged relevant (`relevantIds`).
 */
export function sentenceRows(captured: Captured, label: { answers: readonly string[] } | { relevantIds: ReadonlySet<string> }): Array<{ features: Record<string, number>; label: number }> {
  const signals = captured.ranked.map((scored, index) => ({
    analysis: analyzeChunk(scored.chunk.text, defaultAnalyzer),
    rank: index + 1,
    strength: retrievalStrength(scored),
    ...(scored.chunk.title ? { title: scored.chunk.title } : {}),
  }));
  const terms = [...new Set(captured.analysis?.keywords ?? [])];
  const features = sentenceFeatures(signals, captured.analysis, terms, defaultAnalyzer);
  return features.flatMap((sentences, candidate) =>
    sentences.map((sentence, index) => {
      const held =
        'answers' in label
          ? answerInContext(signals[candidate]!.analysis.sentences[index]!.text, label.answers)
          : label.relevantIds.has(captured.ranked[candidate]!.chunk.docId);
      return { features: featureRecord(sentence.vector), label: held ? 1 : 0 };
    }),
  );
}

/** Training questions of one dataset with what labels their sentences. */
export interface TrainingSet {
  dataset: BenchDataset;
  queries: BenchDataset['queries'];
  captured: ReadonlyMap<string, Captured>;
}

/** The ids of the documents judged relevant for a query. */
export function relevantIds(dataset: BenchDataset, queryId: string): Set<string> {
  return new Set([...(dataset.qrels.get(queryId) ?? new Map<string, number>())].filter(([, grade]) => grade > 0).map(([id]) => id));
}

/**
 * Fits a sentence model on the training sets: every dataset weighs the same, every question within
 * it the same (weights rounded to 3 decimals, as written into `sentence-model.ts`).
 */
export function fitSentenceModel(sets: readonly TrainingSet[], steps = 400): { model: SentenceModel; rows: number; positives: number } {
  const rows: Array<Record<string, number>> = [];
  const labels: number[] = [];
  const weights: number[] = [];
  for (const { dataset, queries, captured } of sets) {
    for (const query of queries) {
      const found = captured.get(query.id);
      if (!found) continue;
      const answers = dataset.answers?.get(query.id);
      const sentences = sentenceRows(found, answers && answers.length > 0 ? { answers } : { relevantIds: relevantIds(dataset, query.id) });
      for (const row of sentences) {
        rows.push(row.features);
        labels.push(row.label);
        weights.push(1 / (queries.length * Math.max(1, sentences.length)));
      }
    }
  }
  const fitted = fitLogistic(rows, labels, weights, { steps });
  const model = { weights: Object.fromEntries(Object.entries(fitted).map(([name, weight]) => [name, Math.round(weight * 1000) / 1000])) };
  return { model, rows: rows.length, positives: labels.filter(Boolean).length };
}
