import {
  ContextEngine,
  ContextManager,
  GreedyCompression,
  HashDeduplication,
  KeywordRetriever,
  PrefixDeduplication,
  ScoreRanking,
  ZerdaError,
  charCounter,
  explainResult,
  resolveConfig,
  toDocumentChunks,
  validateChunk,
  type ContextResult,
  type ScoredTuple,
} from '@zerda/context';
import { documents } from '@zerda/example-quickstart';

/** A chunk as code written for the legacy API passes it around. */
export interface LegacyExampleChunk {
  docId: string;
  source: string;
  text: string;
}

export const query = 'How does BM25 rank documents, and what do k1 and b control?';
/** The legacy pipeline's settings, used the same way by every variant. */
export const maxChunks = 4;
export const maxLength = 700;
/** The separator of the default configuration, which ContextManager's compression adapter uses too. */
export const separator = resolveConfig({}).composer.separator;

/** Each legacy class and its modern replacement (the migration table of @zerda/legacy-compat's README). */
export const migrationMap: ReadonlyArray<{ legacy: string; modern: string; gain: string }> = [
  {
    legacy: 'HashDeduplication',
    modern: 'ChunkFilter (filter.exactDuplicates, on by default)',
    gain: 'same hash; keeps the best-scored copy instead of the first; noise and length filters; every drop reported with its reason',
  },
  {
    legacy: 'PrefixDeduplication',
    modern: 'ChunkFilter near-duplicates (filter.nearDuplicates: MinHash over word shingles, threshold 0.8)',
    gain: 'catches reworded and re-cut copies, not just equal prefixes; no minimum-length failure',
  },
  {
    legacy: 'ScoreRanking',
    modern: 'CompositeRanker',
    gain: 'retrieval, keyword boost, source quality, recency and position, each recorded per chunk; per-document caps; optional MMR diversity',
  },
  {
    legacy: 'GreedyCompression',
    modern: 'SmartContextComposer',
    gain: 'fits chunks instead of a pre-joined string; never exceeds the budget under any counter; query-focused sentence selection; templates with citations',
  },
  { legacy: 'validateChunk', modern: 'toDocumentChunk / toDocumentChunks', gain: 'validates every field and fills defaults (id, source, position)' },
  {
    legacy: 'ContextManager(config, { dedupStrategy, rankingStrategy, compressionStrategy })',
    modern: 'new ContextEngine({ config, chunkFilter, ranker, composer })',
    gain: 'every stage replaceable by a modern strategy; asChunkFilter/asChunkRanker plug a legacy one in meanwhile',
  },
];

export interface LegacyMigrationResult {
  /** The retrieved tuples every variant starts from (a mirrored copy of the BM25 page first). */
  tuples: ScoredTuple<LegacyExampleChunk>[];
  legacy: { deduplicated: ScoredTuple<LegacyExampleChunk>[]; ranked: ScoredTuple<LegacyExampleChunk>[]; context: string };
  /** The error PrefixDeduplication raises on a chunk shorter than its prefix. */
  prefixError: ZerdaError | undefined;
  /** ContextManager with the legacy strategies: `build` on the same tuples, and `run` on the indexed corpus. */
  manager: { context: string; run: ContextResult };
  /** ContextManager without legacy strategies (modern stages), for contrast. */
  managerWithoutLegacy: string;
  /** The modern engine: `build` on the same tuples, and `run` on the indexed corpus. */
  modern: { context: string; run: ContextResult };
}

const rule = (character = '─') => character.repeat(100);
const ids = (tuples: readonly ScoredTuple<LegacyExampleChunk>[]) => tuples.map(([chunk, score]) => `${chunk.docId} (${score.toFixed(2)})`).join(', ');

/**
 * What a legacy application's retrieval returned: BM25 scores over the quickstart corpus, as
 * `[chunk, score]` tuples, with a copy of the BM25 page from a mirror (different case and spacing,
 * lower score) listed first — as a merge of two sources often produces.
 */
async function retrieveTuples(): Promise<ScoredTuple<LegacyExampleChunk>[]> {
  const retriever = new KeywordRetriever();
  await retriever.index(toDocumentChunks(documents));
  const hits = await retriever.retrieve(query, { topK: 6 });
  const tuples = hits.map((hit): ScoredTuple<LegacyExampleChunk> => [{ docId: hit.chunk.docId, source: hit.chunk.source, text: hit.chunk.text }, hit.score]);
  const original = tuples.find(([chunk]) => chunk.docId === 'bm25-en');
  if (!original) throw new Error('the BM25 page should be retrieved for this query');
  const mirrored: LegacyExampleChunk = { docId: 'bm25-mirror', source: 'mirror/search.md', text: original[0].text.toUpperCase().replace(/ /g, '  ') };
  return [[mirrored, original[1] / 2], ...tuples];
}

/**
 * The legacy tuple API side by side with the modern one: HashDeduplication, ScoreRanking and
 * GreedyCompression on `[chunk, score]` tuples; the same strategies through ContextManager (where
 * they take effect); then the modern ContextEngine on the same tuples and on an indexed corpus.
 * Ends with the migration table.
 */
export async function runLegacyMigrationExample(print: (line: string) => void = console.log): Promise<LegacyMigrationResult> {
  const tuples = await retrieveTuples();
  print(`${rule('═')}\n${query}\n${rule()}`);
  print(`retrieved tuples: ${ids(tuples)}`);

  // 1. The legacy pipeline, by hand.
  print(`\n${rule('═')}\n1. Legacy tuple API\n${rule()}`);
  for (const [chunk] of tuples) validateChunk(chunk);
  const deduplicated = new HashDeduplication().deduplicate(tuples);
  print(`HashDeduplication: ${tuples.length} → ${deduplicated.length} (keeps the FIRST copy: ${deduplicated.some(([chunk]) => chunk.docId === 'bm25-mirror') ? 'the mirror' : 'the original'})`);
  const ranked = new ScoreRanking().rank(deduplicated, maxChunks);
  print(`ScoreRanking(maxChunks ${maxChunks}): ${ids(ranked)}`);
  const joined = ranked.map(([chunk]) => chunk.text).join(separator);
  const legacyContext = new GreedyCompression().compress(joined, maxLength, charCounter, separator);
  print(`GreedyCompression: ${[...joined].length} → ${[...legacyContext].length} characters (target ${maxLength})\n${rule()}\n${legacyContext}\n${rule()}`);

  let prefixError: ZerdaError | undefined;
  const withShortChunk: ScoredTuple<LegacyExampleChunk>[] = [...tuples, [{ docId: 'note', source: 'notes.md', text: 'BM25: see handbook.' }, 0.1]];
  try {
    new PrefixDeduplication(100).deduplicate(withShortChunk);
  } catch (error) {
    if (!(error instanceof ZerdaError)) throw error;
    prefixError = error;
    print(`PrefixDeduplication(100) refuses a short chunk before touching anything: ${error.message}\n(HashDeduplication has no length limit; the modern ChunkFilter neither.)`);
  }

  // 2. The same strategies through ContextManager: they replace the filter, ranking and composition stages.
  print(`\n${rule('═')}\n2. ContextManager with the legacy strategies\n${rule()}`);
  const manager = new ContextManager(
    { composer: { maxContextLength: maxLength } },
    { dedupStrategy: new HashDeduplication(), rankingStrategy: new ScoreRanking(), compressionStrategy: new GreedyCompression() },
  );
  const managerContext = await manager.build(query, tuples, { maxChunks, maxLength });
  print(`manager.build(query, tuples): ${managerContext === legacyContext ? 'identical to the hand-written legacy pipeline' : 'DIFFERENT from the legacy pipeline'}`);
  const managerWithoutLegacy = await new ContextManager({ composer: { maxContextLength: maxLength } }).build(query, tuples, { maxChunks, maxLength });
  print(`the same call on a ContextManager without legacy strategies: ${managerWithoutLegacy === legacyContext ? 'identical (the strategies were ignored!)' : 'different — so the legacy strategies do take effect'}`);
  await manager.index(documents);
  const managerRun = await manager.run(query, { maxChunks, overrideBudget: maxLength });
  print(`manager.run on the indexed corpus goes through the same legacy stages (template "${managerRun.template}"):\n${rule()}\n${managerRun.context}\n${rule()}`);

  // 3. The modern engine.
  print(`\n${rule('═')}\n3. The modern ContextEngine\n${rule()}`);
  const engine = new ContextEngine({ config: { composer: { maxContextLength: maxLength, template: 'citations' } } });
  const modernContext = await engine.build(query, tuples, { maxChunks, maxLength });
  print(`engine.build(query, tuples) — ChunkFilter keeps the best-scored copy, CompositeRanker, SmartContextComposer:\n${rule()}\n${modernContext}\n${rule()}`);
  await engine.index(documents);
  const modernRun = await engine.run(query, { maxChunks });
  print(`engine.run(query) — retrieval, filtering, ranking, composition and the guard, explained:\n${rule()}\n${modernRun.context}\n${rule()}\n${explainResult(modernRun)}`);

  // 4. The migration map.
  print(`\n${rule('═')}\n4. Migration map\n${rule()}`);
  print('| legacy | modern | what you gain |');
  print('|---|---|---|');
  for (const row of migrationMap) print(`| ${row.legacy} | ${row.modern} | ${row.gain} |`);

  return {
    tuples,
    legacy: { deduplicated, ranked, context: legacyContext },
    prefixError,
    manager: { context: managerContext, run: managerRun },
    managerWithoutLegacy,
    modern: { context: modernContext, run: modernRun },
  };
}
