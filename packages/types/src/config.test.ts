import { describe, expect, it } from 'vitest';
import { ZerdaError, cosineSimilarity, resolveConfig, resolveConfigSection, similarityFromDistance, validateEmbedding } from './index.js';

describe('resolveConfig', () => {
  it('fills every default from an empty object or undefined', () => {
    const config = resolveConfig();
    expect(config.composer.maxContextLength).toBe(4000);
    expect(config.retrieval.rrfK).toBe(60);
    expect(config.analyzer.budgets).toEqual({ simple: 1500, moderate: 3000, complex: 5000 });
    expect(config.cache.enabled).toBe(true);
    expect(resolveConfig({ cache: { ttlMs: 10 } }).cache).toEqual({ enabled: true, maxEntries: 256, ttlMs: 10 });
  });

  it.each([
    [{ cache: { ttlMs: -1 } }, 'config.cache.ttlMs must be > 0, got number -1'],
    [{ composer: { template: 'fancy' } }, 'config.composer.template must be one of'],
    [{ retreival: {} }, 'config.retreival must be a known option'],
    [{ ranking: { weights: { recency: 'high' } } }, 'config.ranking.weights.recency must be a number, got string "high"'],
    [{ filter: { nearDuplicates: { threshold: 2 } } }, 'config.filter.nearDuplicates.threshold must be <= 1, got number 2'],
  ])('rejects %j', (input, message) => {
    try {
      resolveConfig(input);
      expect.unreachable();
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).code).toBe('ZERDA_INVALID_CONFIG');
      expect((error as Error).message).toContain(message);
    }
  });

  it('resolves one section on its own', () => {
    expect(resolveConfigSection('guard').injection).toBe('flag');
    expect(() => resolveConfigSection('guard', { injection: 'loud' })).toThrow('config.guard.injection must be one of');
  });
});

describe('vector helpers', () => {
  it('converts distances to similarities per metric', () => {
    expect(similarityFromDistance('cosine', 0.25)).toBeCloseTo(0.75);
    expect(similarityFromDistance('ip', -3)).toBe(3);
    expect(similarityFromDistance('l2', 4, { squared: true })).toBeCloseTo(1 / 3);
    expect(similarityFromDistance('l2', 0)).toBe(1);
  });

  it('computes cosine similarity, robust to zero and tiny vectors', () => {
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity(new Float32Array([1, 2]), [2, 4])).toBeCloseTo(1, 6);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
    expect(cosineSimilarity([0, 0], [1, 2])).toBe(0);
    expect(cosineSimilarity([0, 1e-160], [0, 1e-160])).toBeCloseTo(1, 2);
    expect(cosineSimilarity([0, 1e-170], [0, 1e-170])).toBe(0);
    expect(() => cosineSimilarity([1, 2], [1])).toThrow('cosineSimilarity(b) has 1 dimensions, expected 2');
  });

  it('validates embeddings before anything is written', () => {
    expect(validateEmbedding([1, 2, 3], 'e', 3)).toEqual(new Float32Array([1, 2, 3]));
    expect(() => validateEmbedding([1, Number.NaN], 'chunks[0].embedding')).toThrow('chunks[0].embedding[1] must be a finite number, got number NaN');
    expect(() => validateEmbedding([1, 2], 'q', 3)).toThrow('q has 2 dimensions, expected 3');
    expect(() => validateEmbedding('x', 'q')).toThrow(/q must be a Float32Array/);
    expect(() => validateEmbedding([], 'q')).toThrow(/non-empty/);
  });
});
