import { invalidArgument, type ChunkFilter, type ChunkRanker, type DocumentChunk, type DroppedChunk, type ScoredChunk } from '@zerda/types';
import type { LegacyDeduplicationStrategy, LegacyRankingStrategy } from './legacy-strategies.js';
import type { ScoredTuple } from './legacy-tuple.js';

function toTuples(chunks: readonly ScoredChunk[]): ScoredTuple<DocumentChunk>[] {
  if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of scored chunks', chunks);
  return chunks.map((scored, index): ScoredTuple<DocumentChunk> => {
    if (scored === null || typeof scored !== 'object' || scored.chunk === null || typeof scored.chunk !== 'object' || typeof scored.score !== 'number') {
      throw invalidArgument(`chunks[${index}]`, 'a scored chunk { chunk, score }', scored);
    }
    return [scored.chunk, scored.score];
  });
}

/**
 * Maps the tuples a legacy strategy returned back to the scored chunks they came from (by chunk
 * identity, so per-factor scores survive); a tuple with a chunk the strategy made up becomes a new
 * scored chunk with its score.
 */
function fromTuples(tuples: readonly ScoredTuple<DocumentChunk>[], original: readonly ScoredChunk[], strategy: string): ScoredChunk[] {
  if (!Array.isArray(tuples)) throw invalidArgument(`${strategy} result`, 'an array of [chunk, score] tuples', tuples);
  const byChunk = new Map<DocumentChunk, ScoredChunk[]>();
  for (const scored of original) {
    const list = byChunk.get(scored.chunk);
    if (list) list.push(scored);
    else byChunk.set(scored.chunk, [scored]);
  }
  return tuples.map(([chunk, score]) => byChunk.get(chunk)?.shift() ?? { chunk, score, scores: { composite: score } });
}

function strategyName(strategy: object): string {
  return strategy.constructor?.name && strategy.constructor.name !== 'Object' ? strategy.constructor.name : 'legacy strategy';
}

/**
 * Runs a legacy deduplication strategy (`PrefixDeduplication`, `HashDeduplication` or your own) as a
 * modern `ChunkFilter`: scored chunks go in as `[chunk, score]` tuples, the kept ones come back with
 * all their scores, and every removed chunk is reported as dropped with reason `duplicate` and the
 * strategy's name.
 */
export function asChunkFilter(strategy: LegacyDeduplicationStrategy): ChunkFilter {
  if (typeof strategy?.deduplicate !== 'function') throw invalidArgument('strategy', 'an object with deduplicate(chunks)', strategy);
  const name = strategyName(strategy);
  return {
    filter(chunks) {
      const kept = fromTuples(strategy.deduplicate(toTuples(chunks)), chunks, name);
      const keptSet = new Set(kept);
      const dropped: DroppedChunk[] = chunks
        .filter((scored) => !keptSet.has(scored))
        .map((scored) => ({ chunkId: scored.chunk.id, reason: 'duplicate', detail: `removed by ${name}` }));
      return { kept, dropped };
    },
  };
}

/**
 * Runs a legacy ranking strategy (`ScoreRanking` or your own) as a modern `ChunkRanker`: it orders by
 * the chunks' current `score` and honours `maxChunks`; the returned chunks keep all their scores.
 */
export function asChunkRanker(strategy: LegacyRankingStrategy): ChunkRanker {
  if (typeof strategy?.rank !== 'function') throw invalidArgument('strategy', 'an object with rank(chunks, maxChunks)', strategy);
  const name = strategyName(strategy);
  return {
    rank(chunks, options) {
      return fromTuples(strategy.rank(toTuples(chunks), options?.maxChunks), chunks, name);
    },
  };
}
