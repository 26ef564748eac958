import { ContextEngine } from '@zerda/context';
import { charCounter } from '@zerda/text';
import { matchesFilter, seededRandom, type ContextResult, type DocumentChunkInput, type MetadataFilter } from '@zerda/types';
import { fuzzEmbedder } from '../fuzz/fixtures.js';

/** Options of {@link soak}. */
export interface SoakOptions {
  /** Runs in total. Default 50,000. */
  runs?: number;
  /** Runs in flight at once. Default 16. */
  concurrency?: number;
  /** Documents in the corpus. Default 2,000. */
  documents?: number;
  /** Distinct users (conversations, tenants). Default 500. */
  users?: number;
  /** One write (add or remove) per this many runs. Default 50. */
  writeEvery?: number;
  /** Heap samples taken (after a forced GC when `global.gc` exists). Default 20. */
  samples?: number;
  seed?: number;
  onSample?: (sample: HeapSample) => void;
}

export interface HeapSample {
  runs: number;
  heapMb: number;
}

/** A broken promise found while soaking. */
export interface SoakViolation {
  kind: 'budget' | 'filter' | 'tenant' | 'conversation' | 'error';
  message: string;
}

export interface SoakReport {
  runs: number;
  writes: number;
  violations: SoakViolation[];
  heap: HeapSample[];
  /** Heap growth over the second half of the run, in MB per 10,000 runs (least squares slope). */
  growthMbPer10k: number;
  /** Whether heap samples were taken after a forced GC (node --expose-gc). */
  forcedGc: boolean;
  cacheHits: number;
  liveConversations: number;
  elapsedMs: number;
}

const TOPICS = ['retrieval', 'vectors', 'budget', 'arabic', 'tokens', 'ranking', 'guard', 'cache'];
const ARABIC = ['الاسترجاع', 'المتجهات', 'الميزانية', 'العربية', 'الرموز', 'الترتيب', 'الحماية', 'التخزين'];

/** A word only user `u` ever uses (letters only, so the tokenizer keeps it whole). */
function secretOf(user: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return `secret${letters[user % 26]}${letters[Math.floor(user / 26) % 26]}${letters[Math.floor(user / 676) % 26]}word`;
}

function corpus(documents: number, users: number, random: () => number): DocumentChunkInput[] {
  return Array.from({ length: documents }, (_, i) => {
    const topic = i % TOPICS.length;
    const tenant = `t${i % Math.max(1, Math.floor(users / 10))}`;
    const owner = i % users;
    return {
      docId: `doc-${i}`,
      source: `source-${i % 7}`,
      text: `${TOPICS[topic]} ${ARABIC[topic]} document ${i} of tenant ${tenant}. It mentions ${secretOf(owner)} once. ${'Filler words about context engineering. '.repeat(1 + Math.floor(random() * 5))}`,
      metadata: { tenant, owner, topic: TOPICS[topic]!, year: 2018 + (i % 8), lang: topic % 2 === 0 ? 'en' : 'ar' },
    };
  });
}

/**
 * Runs many queries from many users against one shared engine, with writes interleaved, and checks
 * what must hold under load: budgets, tenant filters, no user's secret word in another user's
 * effective query or context, and a bounded heap (samples after GC; the slope of the second half).
 */
export async function soak(options: SoakOptions = {}): Promise<SoakReport> {
  const runs = options.runs ?? 50_000;
  const concurrency = options.concurrency ?? 16;
  const documents = options.documents ?? 2_000;
  const users = options.users ?? 500;
  const writeEvery = options.writeEvery ?? 50;
  const sampleCount = options.samples ?? 20;
  const random = seededRandom(options.seed ?? 42);
  const gc = (globalThis as { gc?: () => void }).gc;
  const started = performance.now();
  const engine = new ContextEngine({ embedder: fuzzEmbedder, config: { guard: { injection: 'redact' }, multiTurn: { maxConversations: Math.max(50, Math.floor(users / 2)) } } });
  await engine.index(corpus(documents, users, random));
  const violations: SoakViolation[] = [];
  const heap: HeapSample[] = [];
  let writes = 0;
  let cacheHits = 0;
  let done = 0;
  let nextDoc = documents;

  const record = (violation: SoakViolation) => {
    if (violations.length < 100) violations.push(violation);
  };

  const oneRun = async (index: number): Promise<void> => {
    const user = Math.floor(random() * users);
    const tenant = `t${user % Math.max(1, Math.floor(users / 10))}`;
    const topic = Math.floor(random() * TOPICS.length);
    const followUp = random() < 0.4;
    const query = followUp ? (random() < 0.5 ? 'and what about it?' : 'وماذا عن ذلك؟') : `${random() < 0.5 ? TOPICS[topic] : ARABIC[topic]} ${secretOf(user)}`;
    const filter: MetadataFilter = random() < 0.7 ? { tenant } : { $and: [{ tenant }, { year: { $gte: 2018 + Math.floor(random() * 8) } }] };
    const budget = 200 + Math.floor(random() * 1800);
    let result: ContextResult;
    try {
      result = await engine.run(query, { conversation: `user-${user}`, metadataFilters: filter, overrideBudget: budget });
    } catch (error) {
      record({ kind: 'error', message: `run ${index}: ${String(error)}` });
      return;
    }
    if (result.fromCache) cacheHits++;
    if (charCounter(result.context) > budget) record({ kind: 'budget', message: `run ${index}: ${charCounter(result.context)} chars for a budget of ${budget}` });
    for (const used of result.chunks) {
      if (!matchesFilter(used.chunk, filter)) record({ kind: 'filter', message: `run ${index}: ${used.chunk.docId} does not match ${JSON.stringify(filter)}` });
    }
    // Another user's secret may appear in a context only through a document of the same tenant (the
    // corpus is shared within a tenant); it must never appear in the effective query.
    const secrets = result.effectiveQuery.match(/secret[a-z]{3}word/g) ?? [];
    for (const secret of secrets) if (secret !== secretOf(user)) record({ kind: 'conversation', message: `run ${index}: user ${user}'s effective query carries ${secret}` });
    for (const used of result.chunks) {
      const owner = (used.chunk.metadata as { tenant?: string }).tenant;
      if (owner !== tenant) record({ kind: 'tenant', message: `run ${index}: tenant ${tenant} got a chunk of ${owner}` });
    }
  };

  const oneWrite = async (): Promise<void> => {
    writes++;
    try {
      if (random() < 0.6) {
        const id = nextDoc++;
        await engine.add(corpus(1, users, random).map((chunk) => ({ ...chunk, docId: `doc-${id}` })));
      } else {
        await engine.remove([`doc-${Math.floor(random() * nextDoc)}`]);
      }
    } catch (error) {
      record({ kind: 'error', message: `write: ${String(error)}` });
    }
  };

  const sampleEvery = Math.max(1, Math.floor(runs / sampleCount));
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < runs) {
      const index = issued++;
      if (index % writeEvery === writeEvery - 1) await oneWrite();
      await oneRun(index);
      done++;
      if (done % sampleEvery === 0) {
        gc?.();
        const sample = { runs: done, heapMb: process.memoryUsage().heapUsed / 2 ** 20 };
        heap.push(sample);
        options.onSample?.(sample);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    runs: done,
    writes,
    violations,
    heap,
    growthMbPer10k: slope(heap.slice(Math.floor(heap.length / 2))) * 10_000,
    forcedGc: gc !== undefined,
    cacheHits,
    liveConversations: engine.conversationCount,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** Least-squares slope of heap MB over runs. */
function slope(samples: readonly HeapSample[]): number {
  if (samples.length < 2) return 0;
  const meanX = samples.reduce((sum, s) => sum + s.runs, 0) / samples.length;
  const meanY = samples.reduce((sum, s) => sum + s.heapMb, 0) / samples.length;
  let numerator = 0;
  let denominator = 0;
  for (const s of samples) {
    numerator += (s.runs - meanX) * (s.heapMb - meanY);
    denominator += (s.runs - meanX) ** 2;
  }
  return denominator === 0 ? 0 : numerator / denominator;
}
