// What every packages/vector-*/scripts/measure.mjs does alike: read `[chunks] [queries]`, build a
// clustered synthetic corpus, time batched adds and search latency (p50/p95 after a warm-up), and
// count recall@10 against exact neighbours. The package script passes the helpers it resolves
// itself (`gaussianMixture` of @zerda/vector-conformance, `percentile` of @zerda/types), so this file
// imports nothing. Numbers depend on the machine: compare within one run.

/** `[chunks] [queries]` from the command line (10,000 and 200 by default). */
export function measureArguments(argv = process.argv) {
  return { total: Number(argv[2] ?? 10_000), queries: Number(argv[3] ?? 200) };
}

/** Milliseconds `action` takes. */
export async function timeMs(action) {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The filter the scripts measure with: it keeps about 1/8 × 15/25 of the chunks (7.5 %). */
export const SELECTIVE_FILTER = Object.freeze({ cluster: 3, year: { $gte: 2010 } });

/**
 * `total` chunks of 16 Gaussian clusters (`metadata.cluster` 0–7, `metadata.year` 2000–2024) and
 * `queries` query vectors from the same mixture.
 */
export function clusteredCorpus(gaussianMixture, { total, queries, dimensions }) {
  const mixture = gaussianMixture({ seed: 42, clusters: 16, dimensions, spread: 0.3 });
  const chunks = Array.from({ length: total }, (_, i) => {
    const { cluster, vector } = mixture.sample();
    return { id: `c${i}`, docId: `d${i >> 3}`, text: `chunk ${i} about topic ${cluster}`, source: 'bench', metadata: { cluster: cluster % 8, year: 2000 + (i % 25) }, position: { index: i & 7 }, embedding: vector };
  });
  return { chunks, queryVectors: Array.from({ length: queries }, () => mixture.sample().vector) };
}

/** Adds the chunks in batches of 1,000; returns the milliseconds taken. */
export function timeAdds(store, chunks) {
  return timeMs(async () => {
    for (let start = 0; start < chunks.length; start += 1000) await store.add(chunks.slice(start, start + 1000));
  });
}

/** Search latency p50/p95 in ms over every query vector, after ten warm-up queries. */
export async function searchLatency(store, queryVectors, options, percentile) {
  for (const vector of queryVectors.slice(0, 10)) await store.search(vector, options);
  const times = [];
  for (const vector of queryVectors) times.push(await timeMs(() => store.search(vector, options)));
  times.sort((a, b) => a - b);
  return { p50: +percentile(times, 50).toFixed(2), p95: +percentile(times, 95).toFixed(2) };
}

/** Recall@10 of `store.search(vector, options)` against `exactTop(vector)` (a Set of ids) over the first `count` query vectors. */
export async function recallAt10(store, queryVectors, count, exactTop, options = {}) {
  const used = queryVectors.slice(0, count);
  let found = 0;
  for (const vector of used) {
    const exact = await exactTop(vector);
    for (const hit of await store.search(vector, { k: 10, ...options })) if (exact.has(hit.chunk.id)) found += 1;
  }
  return found / (10 * used.length);
}
