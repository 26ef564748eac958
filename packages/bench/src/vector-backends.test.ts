import { describe, expect, it } from 'vitest';
import type { DocumentChunk } from '@zerda/types';
import { VECTOR_BACKENDS, createVectorBackend, type VectorBackend } from './jobs.js';
import { parseArguments } from './arguments.js';
import { benchmarkPreset } from './benchmark.js';
import { SeededRandom } from './random.js';
import { SystemUnavailableError } from './systems/search-system.js';

const DIMENSIONS = 16;
const SIZE = 400;

function unitVector(random: SeededRandom): Float32Array {
  const vector = Float32Array.from({ length: DIMENSIONS }, () => random.next() * 2 - 1);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function corpus(): DocumentChunk[] {
  const random = new SeededRandom(7);
  return Array.from({ length: SIZE }, (_, index) => ({
    id: `c${index}`,
    docId: `d${index >> 2}`,
    text: `synthetic chunk ${index}`,
    source: 'bench-test',
    metadata: {},
    position: { index: index & 3 },
    embedding: unitVector(random),
  }));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every backend the vector section can measure is wired the way the bench uses it: created
 * empty, bulk-loaded, finished (index built), searched with its knobs, and disposed of — with no
 * model and no dataset, so this runs in CI wherever the backend's engine can run.
 */
describe('vector backends of the bench', () => {
  const chunks = corpus();

  it.each(VECTOR_BACKENDS.map((backend) => [backend]))('%s: builds, finds each probe as its own nearest neighbour, and cleans up', async (backend: VectorBackend) => {
    let setup;
    try {
      setup = await createVectorBackend(backend, DIMENSIONS, SIZE);
    } catch (error) {
      // Only FAISS (its native addon needs Debian's libfaiss) and the PostgreSQL server (no server
      // binaries, no ZERDA_PG_URL) may be missing; each must say how to get it.
      expect(backend.startsWith('faiss') || backend === 'pgvector-server').toBe(true);
      expect(error).toBeInstanceOf(SystemUnavailableError);
      expect((error as Error).message).toMatch(backend === 'pgvector-server' ? /PostgreSQL|pgvector|ZERDA_PG_URL/ : /faiss/i);
      return;
    }
    expect(setup.settings.length).toBeGreaterThan(10);
    try {
      for (let start = 0; start < chunks.length; start += 150) await setup.store.add(chunks.slice(start, start + 150));
      await setup.finishBuild?.();
      let found = 0;
      for (const probe of chunks.slice(0, 40)) {
        const hits = await setup.store.search(probe.embedding as Float32Array, { ...setup.searchOptions, k: 5 });
        expect(hits.length).toBe(5);
        if (hits[0]!.chunk.id === probe.id) found += 1;
        for (let index = 1; index < hits.length; index++) expect(hits[index - 1]!.score).toBeGreaterThanOrEqual(hits[index]!.score);
      }
      // Approximate indexes may miss now and then; a wrong wiring (metric, ids, k) misses nearly always.
      expect(found).toBeGreaterThanOrEqual(36);
    } finally {
      await setup.dispose();
    }
    if (setup.serverPid !== undefined) expect(alive(setup.serverPid)).toBe(false);
  }, 120_000);

  it('measures every backend by default and accepts each on the command line', () => {
    expect(benchmarkPreset('full').vectorBackends).toEqual([...VECTOR_BACKENDS]);
    expect(parseArguments(['--vector-backends', 'chroma,faiss-hnsw,lancedb-ivf']).options.vectorBackends).toEqual(['chroma', 'faiss-hnsw', 'lancedb-ivf']);
    expect(() => parseArguments(['--vector-backends', 'milvus'])).toThrow(/unknown value "milvus".*lancedb-exact/);
  });
});
