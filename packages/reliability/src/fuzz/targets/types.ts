import {
  TopK,
  ZerdaError,
  allOf,
  anyOf,
  assertStructureLimits,
  canonicalFilterKey,
  checkInteger,
  cosineSimilarity,
  describeValue,
  FILTER_LIMITS,
  leaf,
  matchesFilter,
  metadataTerms,
  parseMetadataFilter,
  percentile,
  presenceTerm,
  pushDownFilter,
  resolveConfig,
  resolveConfigSection,
  seededRandom,
  similarityFromDistance,
  toDocumentChunk,
  toDocumentChunks,
  validateEmbedding,
  validateSearchOptions,
  valueTerm,
  type FieldTranslator,
  type MetadataFilter,
} from '@zerda/types';
import type { Generator } from '../generator.js';
import { chunkList } from '../fixtures.js';
import { expect, target, type FuzzTarget } from '../target.js';

/** A config input: mostly valid sections with hostile values, sometimes unknown keys. */
export function configInput(g: Generator): unknown {
  return g.options({
    composer: () => g.options({ maxContextLength: () => g.number(1, 5000), template: () => g.pick(['default', 'numbered', 'markdown', 'xml', 'citations', 'fancy']), minChunkLength: () => g.number(0, 80), compression: () => g.pick(['auto', 'always', 'off']), ordering: () => g.pick(['rank', 'document', 'edges']) }),
    guard: () => g.options({ injection: () => g.pick(['flag', 'redact', 'off', 'block']), enabled: () => g.chance(0.8), minRelevance: () => g.pick([0, 0.05, 0.5, 2]) }),
    cache: () => g.options({ enabled: () => g.chance(0.5), maxEntries: () => g.number(1, 50), ttlMs: () => g.number(1, 100_000) }),
    retrieval: () => g.options({ topK: () => g.number(1, 50), fusion: () => g.pick(['rrf', 'weighted']) }),
    analyzer: () => g.options({ maxQueryLength: () => g.number(1, 100_000) }),
    multiTurn: () => g.options({ enabled: () => g.chance(0.8), maxTurns: () => g.number(1, 30), maxConversations: () => g.number(1, 100) }),
  });
}

const translator: FieldTranslator = {
  anyEquals: (values, negated) => leaf('f', negated ? '$nin' : '$in', values),
  compare: (operator, bound, negated) => leaf('f', negated ? '$not' + operator : operator, bound),
  present: (expected) => leaf('f', '$exists', expected),
};

/** Entry points of @zerda/types. */
export const typesTargets: FuzzTarget[] = [
  target('types.parseMetadataFilter+matchesFilter', async (g, c) => {
    const filter = g.filter();
    const parsed = await c.call(() => parseMetadataFilter(filter, 'filter'));
    const metadata = g.metadata();
    if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
      const verdict = await c.call(() => matchesFilter({ metadata: metadata as never, docId: 'doc-1', source: 'wiki' }, parsed));
      expect(typeof verdict === 'boolean', 'matchesFilter returned a non-boolean');
      if (!('$not' in parsed)) expect(matchesFilter({ metadata: metadata as never, docId: 'doc-1', source: 'wiki' }, { $not: parsed }) === !verdict, '$not does not negate');
    }
    const key = await c.call(() => canonicalFilterKey(parsed));
    expect(typeof key === 'string', 'canonicalFilterKey returned a non-string');
  }, 3),
  target('types.matchesFilter(unvalidated)', async (g, c) => {
    await c.call(() => matchesFilter({ metadata: {} }, g.filter() as MetadataFilter));
  }),
  target('types.pushDownFilter', async (g, c) => {
    const result = await c.call(() => pushDownFilter(g.filter() as MetadataFilter, () => translator));
    expect(typeof result.exact === 'boolean', 'pushDownFilter returned no exactness');
    await c.call(() => allOf([leaf('a', '$eq', 1), leaf('b', '$eq', 2)]));
    await c.call(() => anyOf(g.chance(0.9) ? [leaf('a', '$eq', 1)] : (g.hostile() as never)));
  }),
  target('types.metadataTerms', async (g, c) => {
    await c.call(() => metadataTerms(g.metadata() as never));
    await c.call(() => presenceTerm(g.text() as string));
    await c.call(() => valueTerm(g.word(), g.pick<unknown>(['a', 1, null, true, {}, Number.NaN]) as never));
  }),
  target('types.assertStructureLimits', async (g, c) => {
    await c.call(() => assertStructureLimits(g.chance(0.5) ? g.hostile() : g.filter(), 'value', FILTER_LIMITS));
  }),
  target('types.toDocumentChunk(s)', async (g, c) => {
    const chunks = await c.call(() => toDocumentChunks(chunkList(g), 'chunks'));
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(ids.size === chunks.length, 'toDocumentChunks returned duplicate ids');
    await c.call(() => toDocumentChunk(g.chunkInput(0), g.int(0, 3), 'chunk'));
  }, 2),
  target('types.resolveConfig', async (g, c) => {
    const config = await c.call(() => resolveConfig(configInput(g)));
    expect(config.composer.maxContextLength > 0, 'resolveConfig accepted a non-positive maxContextLength');
    await c.call(() => resolveConfigSection(g.pick(['composer', 'guard', 'cache', 'analyzer', 'nope'] as const) as 'composer', configInput(g)));
  }),
  target('types.vectors', async (g, c) => {
    const length = g.int(0, 8);
    const vector = g.chance(0.9) ? Array.from({ length }, () => (g.chance(0.95) ? g.float() * 2 - 1 : g.pick([Number.NaN, Infinity]))) : g.hostile();
    await c.call(() => validateEmbedding(vector, 'embedding', g.chance(0.5) ? length : undefined));
    await c.call(() => cosineSimilarity(vector as number[], Array.from({ length }, () => g.float())));
    await c.call(() => similarityFromDistance(g.pick(['cosine', 'ip', 'l2', 'hamming'] as const) as 'cosine', g.number(-2, 4) as number));
    await c.call(() => validateSearchOptions(g.options({ k: () => g.number(0, 20), filter: () => g.filter() })));
  }),
  target('types.utilities', async (g, c) => {
    const values = g.chance(0.9) ? g.array(() => g.float() * 100, 20) : g.hostile();
    const p = g.number(0, 100);
    const result = await c.call(() => percentile(values as number[], p as number));
    expect(typeof result === 'number', 'percentile returned a non-number');
    await c.call(() => seededRandom(g.number(0, 2 ** 32) as number)());
    await c.call(() => checkInteger(g.number(-5, 5), 'value', 0, 3));
    const top = await c.call(() => new TopK(g.number(0, 10) as number, (a, b) => a < b));
    for (let i = 0; i < 20; i++) top.push(g.float(), i);
    await c.call(() => describeValue(g.hostile()));
    await c.call(() => ZerdaError.isInstance(g.hostile()));
  }),
];
