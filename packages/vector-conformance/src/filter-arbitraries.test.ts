import fc from 'fast-check';
import { matchesFilter, parseMetadataFilter, toDocumentChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { filterArbitraries } from './filter-arbitraries.js';

describe('filterArbitraries', () => {
  it('generates valid filters and rows, with matches and misses both common', () => {
    const { row, filter } = filterArbitraries(fc);
    let matched = 0;
    let missed = 0;
    fc.assert(
      fc.property(fc.array(row, { minLength: 5, maxLength: 10 }), filter, (rows, generated) => {
        const parsed = parseMetadataFilter(generated);
        for (const [i, item] of rows.entries()) {
          const chunk = toDocumentChunk({ id: `c${i}`, docId: item.docId, source: item.source, text: '', metadata: item.metadata });
          if (matchesFilter(chunk, parsed)) matched += 1;
          else missed += 1;
        }
      }),
      { numRuns: 300 },
    );
    expect(matched).toBeGreaterThan(200);
    expect(missed).toBeGreaterThan(200);
  });

  it('draws from the vocabularies given', () => {
    const { row } = filterArbitraries(fc, { keys: ['only'], strings: ['s'], numbers: [7], docIds: ['d'], sources: ['x'] });
    for (const sample of fc.sample(row, 50)) {
      expect(Object.keys(sample.metadata).every((key) => key === 'only')).toBe(true);
      expect(sample.docId).toBe('d');
      expect(sample.source).toBe('x');
    }
  });
});
