import { describe, expect, it } from 'vitest';
import { matchesFilter } from '@zerda/types';
import { FILTER_CASES, FILTER_FIXTURE, testVectorStore } from './index.js';
import { ReferenceStore } from './__fixtures__/reference-store.js';

// The suite itself, run against a minimal correct store for each metric.
for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({
    name: `reference store (${metric})`,
    create: () => new ReferenceStore(metric),
    reopen: async (store) => (store as ReferenceStore).reopened(),
    dimensions: metric === 'l2' ? 3 : 8,
    capabilities: { persistence: true, nativeFilter: true, textSearch: false, embeds: false },
    initialDimensions: null,
    additionalTests: (getStore) => {
      it('additionalTests receive the current store', () => {
        expect(getStore()).toBeInstanceOf(ReferenceStore);
      });
    },
  });
}

testVectorStore({ name: 'skipped suite', create: () => new ReferenceStore(), skip: 'demonstrates skip with a reason' });

describe('the fixtures', () => {
  it('every filter case agrees with the reference evaluator of @zerda/types', () => {
    for (const testCase of FILTER_CASES) {
      const matching = FILTER_FIXTURE.filter((row) => matchesFilter({ metadata: row.metadata, docId: row.docId, source: row.source }, testCase.filter)).map((row) => row.id);
      expect(matching, testCase.name).toEqual(testCase.expected);
    }
  });

  it('every filter operator is exercised', () => {
    const used = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key.startsWith('$')) used.add(key);
          walk(inner);
        }
      }
    };
    FILTER_CASES.forEach((testCase) => walk(testCase.filter));
    expect([...used].sort()).toEqual(['$and', '$eq', '$exists', '$gt', '$gte', '$in', '$lt', '$lte', '$ne', '$nin', '$not', '$or'].sort());
  });
});

describe('the suite catches broken stores', () => {
  it('fails a store for each deliberate defect, in the test that names it', { timeout: 60_000 }, async () => {
    const { execFile } = await import('node:child_process');
    const { createRequire } = await import('node:module');
    const { mkdtemp, readFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { dirname, join } = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const here = dirname(fileURLToPath(import.meta.url));
    const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    const out = await mkdtemp(join(tmpdir(), 'zerda-conformance-'));
    const report = join(out, 'report.json');
    try {
      await new Promise<void>((resolve) => {
        execFile(process.execPath, [vitestBin, 'run', '--config', join(here, '__fixtures__', 'vitest.defects.config.ts'), '--reporter=json', `--outputFile=${report}`], () => resolve());
      });
      const results = JSON.parse(await readFile(report, 'utf8')) as {
        testResults: Array<{ assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }> }>;
      };
      const failed = results.testResults.flatMap((file) => file.assertionResults).filter((test) => test.status === 'failed');
      const failedIn = (defect: string) => failed.filter((test) => test.ancestorTitles[0] === `defect ${defect}`).map((test) => test.title);
      expect(failedIn('ignoresFilter')).toContain('equality shorthand: {"lang":"ar"}');
      expect(failedIn('writesBeforeValidating')).toContain('rejects a dimension mismatch with a ZerdaError and keeps the store as it was');
      expect(failedIn('returnsDistances')).toContain('are the metric similarity at known angles, sorted best first');
      expect(failedIn('duplicatesOnReAdd')).toContain('re-adding an id replaces the chunk (text, metadata and vector), it does not duplicate it');
      expect(failedIn('wrongCapabilities')).toEqual(['declares the capabilities its backend has']);
      expect(failedIn('wrongInitialDimensions')).toEqual(['has its configured dimension (8) before anything is added']);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

describe('structured test data', () => {
  it('is deterministic per seed and clustered around its centres', async () => {
    const { gaussianMixture, seededRandom } = await import('./index.js');
    const a = seededRandom(9);
    const b = seededRandom(9);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Array.from({ length: 5 }, seededRandom(10))).not.toEqual(first);
    const mixture = gaussianMixture({ seed: 1, clusters: 5, dimensions: 16, spread: 0.1 });
    for (let i = 0; i < 50; i++) {
      const { cluster, vector } = mixture.sample();
      const distance = (centre: Float32Array) => Math.hypot(...Array.from(vector, (x, d) => x - centre[d]!));
      const own = distance(mixture.centres[cluster]!);
      expect(mixture.centres.every((centre, c) => c === cluster || distance(centre) > own)).toBe(true);
    }
  });
});
